// `skograph analyze` / `render --matrix M_R` on closed chains, running the real binary: the
// "embedding" object of report.json against `skograph dynamics --json` at the same state (its
// "independent" names, the shape of "X", the nonzero count of "M_reduced"), the graph layer's
// aggregation sub-graphs and the `--what aggregated` labels; the M_R picture as a PNG whose size
// follows the spy-plot geometry; null for trees and DOT files; a state that cannot be closed (a
// note, exit 0, the tree part complete); and bad --state / --matrix M_R requests (exit 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "support/cli_support.hpp"
#include "support/io_support.hpp"
#include "support/picture_checks.hpp"

namespace skograph {
namespace {

using io_test::scratch_dir;
using io_test::write_file;
using Json = nlohmann::json;

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

using cli_test::CliRun;
using cli_test::run_cli;

std::string model_file(const std::string& name) {
  return cli_test::example_model(name);
}

Json analyze_report(const std::string& arguments, const std::filesystem::path& dir) {
  const CliRun run = run_cli("analyze " + arguments + " --out " + dir.string());
  EXPECT_EQ(run.status, 0) << arguments << ": " << run.err;
  return Json::parse(slurp(dir / "report.json"));
}

const char* const kEmbeddedExamples[] = {"fourbar",
                                         "fourbar_chain",
                                         "geared_links",
                                         "fourbar_internal_cut",
                                         "fourbar_terminal_cut",
                                         "stewart_platform",
                                         "suspension"};

// Every closed example, at its zero configuration and at its example state: the embedding agrees
// with `skograph dynamics --json` (a separate command and code path: dense M_R by composite
// inertias, X from the selection) and with the graph layer's aggregation sub-graphs.
TEST(AnalyzeEmbeddingCli, AgreesWithDynamicsAndTheGraphLayer) {
  const auto dir = scratch_dir() / "embedding_examples";
  for (const std::string name : kEmbeddedExamples) {
    for (const bool with_state : {false, true}) {
      SCOPED_TRACE(name + (with_state ? " at its state" : " at zero"));
      const std::string state = with_state ? " --state " + model_file(name + "_state.json") : "";
      const Json report = analyze_report(model_file(name + ".yaml") + state, dir);
      const CliRun dynamics = run_cli("dynamics " + model_file(name + ".yaml") + state + " --json");
      ASSERT_EQ(dynamics.status, 0) << dynamics.err;
      const Json reference = Json::parse(dynamics.out);
      const Json& embedding = report["embedding"];
      ASSERT_TRUE(embedding.is_object());
      EXPECT_EQ(embedding["closed"], true);
      EXPECT_EQ(embedding["independent"], reference["independent"]);
      const int dofs = static_cast<int>(reference["dofs"].size());
      const int n_r = static_cast<int>(reference["X"][0].size());
      EXPECT_EQ(embedding["n_R"], n_r);
      const Json& reduced = embedding["M_R"];
      EXPECT_EQ(reduced["rows"], n_r);
      EXPECT_EQ(reduced["cols"], n_r);
      int nonzero = 0;
      for (const Json& row : reference["M_reduced"])
        for (const Json& value : row) nonzero += std::abs(value.get<double>()) > 0.0;
      EXPECT_EQ(reduced["nonzeros"], nonzero);
      EXPECT_GE(reduced["structural_nonzeros"].get<int>(), nonzero);
      // Part II section 7.4 on the embedded tree: the canonical ordering does not fill, so
      // nnz(L) is the lower triangle of the (symmetric) structural pattern.
      const Json& canonical = reduced["L"]["canonical"];
      EXPECT_EQ(canonical["fill"], 0);
      EXPECT_EQ(canonical["nonzeros"], (reduced["structural_nonzeros"].get<int>() + n_r) / 2);
      // Each aggregate: n_R(S) = n_S - rank(Q_S); all dependent dofs are the aggregates' ranks.
      int rank_sum = 0;
      std::set<std::set<std::string>> embedded_members, graph_members;
      for (const Json& aggregate : embedding["aggregates"]) {
        EXPECT_EQ(aggregate["independent"].get<int>(),
                  aggregate["dofs"].get<int>() - aggregate["rank"].get<int>());
        EXPECT_LE(aggregate["rank"].get<int>(), aggregate["constraint_rows"].get<int>());
        rank_sum += aggregate["rank"].get<int>();
        embedded_members.insert(aggregate["links"].get<std::set<std::string>>());
      }
      EXPECT_EQ(rank_sum, dofs - n_r);
      for (const Json& aggregate : report["graph"]["aggregates"])
        graph_members.insert(aggregate["nodes"].get<std::set<std::string>>());
      EXPECT_EQ(embedded_members, graph_members);
      // Every loop and coupling of the model sits in exactly one aggregate.
      std::multiset<std::string> cut;
      for (const Json& aggregate : embedding["aggregates"]) {
        for (const Json& loop : aggregate["loops"]) cut.insert(loop.get<std::string>());
        for (const Json& coupling : aggregate["couplings"]) cut.insert(coupling.get<std::string>());
      }
      EXPECT_EQ(static_cast<int>(cut.size()),
                report["model"]["loops"].get<int>() + report["model"]["couplings"].get<int>());
      EXPECT_EQ(std::set<std::string>(cut.begin(), cut.end()).size(), cut.size());
      EXPECT_NE(std::find(report["pictures"].begin(), report["pictures"].end(), "sparsity-M_R.png"),
                report["pictures"].end());
    }
  }
  std::filesystem::remove_all(dir);
}

// The aggregated-tree diagram labels each aggregate {members} with the number that the
// embedding's "node" gives it (the row block of M_R in the spy plot).
TEST(AnalyzeEmbeddingCli, AggregatedDiagramLabelsAgreeWithTheEmbedding) {
  const auto dir = scratch_dir() / "embedding_labels";
  for (const std::string name : kEmbeddedExamples) {
    SCOPED_TRACE(name);
    const Json report = analyze_report(model_file(name + ".yaml"), dir);
    const auto dot = dir / "aggregated.dot";
    ASSERT_EQ(
        run_cli("render " + model_file(name + ".yaml") + " --what aggregated -o " + dot.string())
            .status,
        0);
    const std::string text = slurp(dot);
    for (const Json& aggregate : report["embedding"]["aggregates"]) {
      std::string id;
      for (const Json& link : aggregate["links"])
        id += (id.empty() ? "" : "+") + link.get<std::string>();
      // The node statement: "ID" [label="...\nNUMBER", ...]; ID joins the members by '+'.
      const std::string start = "\"" + id + "\" [label=\"";
      const size_t at = text.find(start);
      ASSERT_NE(at, std::string::npos) << id;
      const size_t end = text.find("\"", at + start.size());
      const std::string label = text.substr(at, end + 1 - at);
      const std::string number = "\\n" + std::to_string(aggregate["node"].get<int>()) + "\"";
      EXPECT_EQ(label.substr(label.size() - number.size()), number) << label;
    }
  }
  std::filesystem::remove_all(dir);
}

// One numbering: digraph.svg's aggregate boxes carry the numbers of report.json's
// aggregates (the aggregated tree's nodes, M_R's row blocks); for every closed example in both
// formats (the MJCF files list fixed bodies the embedded model fuses).
TEST(AnalyzeEmbeddingCli, DigraphAggregatesAreNumberedAsTheReportAndMR) {
  const auto dir = scratch_dir() / "embedding_numbers";
  std::vector<std::string> files;
  for (const std::string name : kEmbeddedExamples) files.push_back(name + ".yaml");
  for (const std::string name : {"fourbar_chain.xml", "stewart_platform.xml", "fourbar.xml"})
    files.push_back(name);
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const Json report = analyze_report(model_file(file), dir);
    const auto dot = dir / "digraph.dot";
    ASSERT_EQ(run_cli("render " + model_file(file) + " --what digraph -o " + dot.string()).status,
              0);
    const std::string text = slurp(dot);
    for (const Json& aggregate : report["embedding"]["aggregates"]) {
      // The cluster holding the aggregate's first member is labelled with its number.
      const std::string member = "\"" + aggregate["links"][0].get<std::string>() + "\" [label=";
      const size_t at = text.find(member);
      ASSERT_NE(at, std::string::npos) << member;
      const size_t cluster = text.rfind("subgraph", at);
      ASSERT_NE(cluster, std::string::npos);
      const std::string label =
          "label=\"aggregate " + std::to_string(aggregate["node"].get<int>()) + "\"";
      EXPECT_NE(text.substr(cluster, at - cluster).find(label), std::string::npos)
          << text.substr(cluster, at - cluster);
    }
  }
  std::filesystem::remove_all(dir);
}

// The diagrams of a model name its loops and couplings on their cut edges (couplings
// purple and dashed, loops red) and show joint names and types on tree edges with a legend line.
TEST(AnalyzeEmbeddingCli, DiagramsNameCutEdgesAndShowJointTypes) {
  const auto dot = scratch_dir() / "fourbar_notes.dot";
  ASSERT_EQ(
      run_cli("render " + model_file("fourbar.yaml") + " --what digraph -o " + dot.string()).status,
      0);
  const std::string text = slurp(dot);
  const std::string table = "<TABLE BORDER=\"0\" CELLPADDING=\"3\" CELLSPACING=\"0\">";
  EXPECT_NE(text.find("\"coupler\" -> \"rocker\" [color=\"#d62728\", penwidth=2, style=bold, "
                      "constraint=false, fontcolor=\"#d62728\", xlabel=<" +
                      table + "<TR><TD>pin_c</TD></TR><TR><TD>(revolute)</TD></TR></TABLE>>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"rotor\" -> \"crank\" [color=\"#6a3d9a\", penwidth=2, "
                      "style=\"dashed,bold\", constraint=false, fontcolor=\"#6a3d9a\", xlabel=<" +
                      table + "<TR><TD>gearbox</TD></TR></TABLE>>"),
            std::string::npos)
      << text;
  const std::string coupler_joint = "\"crank\" -> \"coupler\" [fontcolor=\"#555555\", label=<" +
                                    table +
                                    "<TR><TD>coupler_joint</TD></TR><TR><TD>(continuous)</TD>";
  EXPECT_NE(text.find(coupler_joint), std::string::npos) << text;
  EXPECT_NE(text.find("tree edges: the joint's name and (type)"), std::string::npos);
  EXPECT_NE(text.find("purple, dashed: gear couplings"), std::string::npos);
  // The spanning tree keeps the joint types; its cut edges are left out.
  ASSERT_EQ(
      run_cli("render " + model_file("fourbar.yaml") + " --what spanning-tree -o " + dot.string())
          .status,
      0);
  const std::string tree = slurp(dot);
  EXPECT_NE(tree.find("\"crank\" -> \"coupler\" [label=<" + table +
                      "<TR><TD>coupler_joint</TD></TR><TR><TD>(continuous)</TD>"),
            std::string::npos)
      << tree;
  EXPECT_EQ(tree.find("pin_c"), std::string::npos);
  std::filesystem::remove(dot);
}

// The spy plot of M_R: a PNG; analyze's and render's are the same picture; its matrix area is
// n_R cells of min(40, size / n_R) pixels (viz/spy_plot.hpp), so two sizes differ in height by
// exactly n_R times the difference of the cells (the text bands do not change).
TEST(AnalyzeEmbeddingCli, ReducedMassPictureIsAPngOfTheRightSize) {
  const auto dir = scratch_dir() / "embedding_picture";
  const std::string model = model_file("fourbar_chain.yaml");
  const std::string state = model_file("fourbar_chain_state.json");
  const Json report = analyze_report(model + " --state " + state + " --size 400", dir);
  const int n_r = report["embedding"]["n_R"];
  const std::string analyzed = slurp(dir / "sparsity-M_R.png");
  const skograph::test::PngSize size = skograph::test::png_size(analyzed);
  ASSERT_GT(size.width, 0);
  const auto big = dir / "big.png", small = dir / "small.png";
  const CliRun render_big = run_cli("render " + model + " --what sparsity --matrix M_R --state " +
                                    state + " --size 400 -o " + big.string());
  ASSERT_EQ(render_big.status, 0) << render_big.err;
  EXPECT_EQ(slurp(big), analyzed);
  ASSERT_EQ(run_cli("render " + model + " --what sparsity --matrix M_R --state " + state +
                    " --size 160 -o " + small.string())
                .status,
            0);
  const int cell_big = std::min(40, 400 / n_r), cell_small = std::min(40, 160 / n_r);
  const skograph::test::PngSize small_size = skograph::test::png_size(slurp(small));
  EXPECT_EQ(size.height - small_size.height, n_r * (cell_big - cell_small));
  EXPECT_GE(size.width, n_r * cell_big);
  std::filesystem::remove_all(dir);
}

TEST(AnalyzeEmbeddingCli, TreesAndDigraphsHaveNoEmbedding) {
  const auto dir = scratch_dir() / "embedding_tree";
  for (const std::string& input :
       {model_file("humanoid.yaml"), model_file("arm7.urdf"),
        std::string(SKOGRAPH_SOURCE_DIR) + "/examples/graphs/fourbar.dot"}) {
    SCOPED_TRACE(input);
    const Json report = analyze_report(input, dir);
    EXPECT_TRUE(report["embedding"].is_null());
    EXPECT_FALSE(std::filesystem::exists(dir / "sparsity-M_R.png"));
    std::filesystem::remove_all(dir);
  }
  // A tree model still validates its --state.
  const Json with_state = analyze_report(
      model_file("humanoid.yaml") + " --state " + model_file("humanoid_state.json"), dir);
  EXPECT_TRUE(with_state["embedding"].is_null());
  std::filesystem::remove_all(dir);
}

// The 0.4 m two-link arm's tip tied to a world point 1 m away: no state closes it. analyze still
// writes the tree part, says why in "notes" and exits 0; render --matrix M_R has nothing to draw.
TEST(AnalyzeEmbeddingCli, AStateThatCannotBeClosedGivesANoteAndTheTreePart) {
  const std::string model = write_file("embedding_reach.yaml", R"(links:
  - {name: a, mass: 1, com: [0.1, 0, 0], inertia: {ixx: 0.001, iyy: 0.004, izz: 0.004}}
  - {name: b, mass: 1, com: [0.1, 0, 0], inertia: {ixx: 0.001, iyy: 0.004, izz: 0.004}}
joints:
  - {name: ja, type: revolute, parent: world, child: a, axis: [0, 0, 1]}
  - {name: jb, type: revolute, parent: a, child: b, axis: [0, 0, 1], origin: {xyz: [0.2, 0, 0]}}
loops:
  - {name: tip, type: spherical, parent: world, child: b,
     origin: {xyz: [1.0, 0, 0]}, child_origin: {xyz: [0.2, 0, 0]}}
)");
  const auto dir = scratch_dir() / "embedding_reach";
  const CliRun run = run_cli("analyze " + model + " --out " + dir.string());
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("cannot be closed"), std::string::npos) << run.err;
  const Json report = Json::parse(slurp(dir / "report.json"));
  const Json& embedding = report["embedding"];
  EXPECT_EQ(embedding["closed"], false);
  EXPECT_TRUE(embedding["M_R"].is_null());
  EXPECT_TRUE(embedding["independent"].is_null());
  ASSERT_EQ(embedding["aggregates"].size(), 1u);
  EXPECT_EQ(embedding["aggregates"][0]["loops"], Json::array({"tip"}));
  EXPECT_EQ(embedding["aggregates"][0]["constraint_rows"], 3);  // spherical: 3 linear rows
  EXPECT_TRUE(embedding["aggregates"][0]["rank"].is_null());
  bool noted = false;
  for (const Json& note : report["notes"])
    noted =
        noted || note.get<std::string>().find("loop 'tip' cannot be closed") != std::string::npos;
  EXPECT_TRUE(noted) << report["notes"];
  EXPECT_EQ(report["sparsity"]["M"]["rows"], 2);
  EXPECT_FALSE(std::filesystem::exists(dir / "sparsity-M_R.png"));
  EXPECT_TRUE(std::filesystem::exists(dir / "sparsity-M.png"));
  const auto out = dir / "reach-MR.png";
  const CliRun render =
      run_cli("render " + model + " --what sparsity --matrix M_R -o " + out.string());
  cli_test::expect_one_line_error(render, "cannot be closed");
  EXPECT_FALSE(std::filesystem::exists(out));
  std::filesystem::remove_all(dir);
}

// The two-link arm's tip welded to the world: both joints dependent, n_R = 0 (dynamics agrees),
// an empty M_R that still reports and draws (a valid PNG), exit status 0.
TEST(AnalyzeEmbeddingCli, AMechanismWithoutIndependentDofsHasAnEmptyReducedMassMatrix) {
  const std::string model = write_file("embedding_weld.yaml", R"(links:
  - {name: a, mass: 1, com: [0.1, 0, 0], inertia: {ixx: 0.001, iyy: 0.004, izz: 0.004}}
  - {name: b, mass: 1, com: [0.1, 0, 0], inertia: {ixx: 0.001, iyy: 0.004, izz: 0.004}}
joints:
  - {name: ja, type: revolute, parent: world, child: a, axis: [0, 0, 1]}
  - {name: jb, type: revolute, parent: a, child: b, axis: [0, 0, 1], origin: {xyz: [0.2, 0, 0]}}
loops:
  - {name: tip, type: weld, parent: world, child: b,
     origin: {xyz: [0.4, 0, 0]}, child_origin: {xyz: [0.2, 0, 0]}}
)");
  const auto dir = scratch_dir() / "embedding_weld";
  const Json report = analyze_report(model, dir);
  const Json& embedding = report["embedding"];
  const CliRun dynamics = run_cli("dynamics " + model + " --json");
  ASSERT_EQ(dynamics.status, 0) << dynamics.err;
  EXPECT_EQ(embedding["independent"], Json::parse(dynamics.out)["independent"]);
  EXPECT_EQ(embedding["n_R"], 0);
  EXPECT_EQ(embedding["aggregates"][0]["constraint_rows"], 6);  // weld: all six directions
  EXPECT_EQ(embedding["aggregates"][0]["rank"], 2);             // a planar pair of revolutes
  EXPECT_EQ(embedding["M_R"]["rows"], 0);
  EXPECT_EQ(embedding["M_R"]["L"]["canonical"]["nonzeros"], 0);
  EXPECT_GT(skograph::test::png_size(slurp(dir / "sparsity-M_R.png")).width, 0);
  std::filesystem::remove_all(dir);
}

// Bad --state and --matrix M_R requests: one line naming the problem, exit 2, nothing written.
TEST(AnalyzeEmbeddingCli, BadStateAndReducedMassRequestsAreOneLineAndExitTwo) {
  const auto dir = scratch_dir() / "embedding_bad";
  const std::string missing = (scratch_dir() / "embedding_no_such_state.json").string();
  const std::string broken = write_file("embedding_broken_state.json", "{\"q\": [1, 2");
  struct Case {
    std::string arguments, expected;
  };
  const std::string chain = model_file("fourbar_chain.yaml");
  const Case cases[] = {
      {"analyze " + chain + " --state " + missing + " --out " + dir.string(), missing},
      {"analyze " + chain + " --state " + broken + " --out " + dir.string(), broken},
      {"analyze " + model_file("humanoid.yaml") + " --state " + missing + " --out " + dir.string(),
       missing},
      {"analyze " + std::string(SKOGRAPH_SOURCE_DIR) + "/examples/graphs/fourbar.dot --state " +
           model_file("fourbar_state.json") + " --out " + dir.string(),
       "needs a MODEL"},
      {"analyze " + chain + " --out " + dir.string() + " --state", "--state needs a value"},
      {"render " + chain + " --what sparsity --matrix M_R --state " + missing + " -o " +
           (dir / "x.png").string(),
       missing},
      {"render " + model_file("humanoid.yaml") + " --what sparsity --matrix M_R -o " +
           (dir / "x.png").string(),
       "needs a MODEL with loops or couplings"},
      {"render " + chain + " --what sparsity --matrix M --state " +
           model_file("fourbar_chain_state.json") + " -o " + (dir / "x.png").string(),
       "--state applies to --what sparsity --matrix M_R, K or L_K only"},
      {"render " + chain + " --what sparsity --matrix MR -o " + (dir / "x.png").string(),
       "expected M, E, A, L, M_R, K or L_K"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.arguments);
    cli_test::expect_one_line_error(run_cli(c.arguments), c.expected);
    EXPECT_FALSE(std::filesystem::exists(dir / "report.json"));
    EXPECT_FALSE(std::filesystem::exists(dir / "x.png"));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace skograph
