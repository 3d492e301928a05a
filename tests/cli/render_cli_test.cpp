// `skograph render`, `skograph analyze` and `skograph demo` run as the real binary: valid output
// files, and every bad-input kind (unknown --what / --format / --matrix, an output
// directory that cannot be written, a matrix too big to draw exactly) with one line on stderr,
// the right exit status, and never a partial file.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "skograph/graph/digraph.hpp"

#include "support/cli_support.hpp"
#include "support/picture_checks.hpp"

namespace {

using skograph::io_test::scratch_dir;

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

using cli_test::CliRun;
using cli_test::run_cli;

std::string example(const std::string& relative) {
  return std::string(SKOGRAPH_SOURCE_DIR) + "/examples/" + relative;
}

int line_count(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

// Every file in the folder (nothing hidden: a leftover temporary would show here).
std::vector<std::string> files_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(RenderCli, EveryDiagramInEveryFormatIsAValidFile) {
  const auto dir = scratch_dir() / "formats";
  std::filesystem::create_directories(dir);
  for (const std::string what : {"digraph", "spanning-tree", "aggregated", "segments"}) {
    for (const std::string format : {"svg", "png", "pdf", "dot"}) {
      const auto out = dir / (what + "." + format);
      const CliRun run = run_cli("render " + example("models/fourbar.yaml") + " --what " + what +
                                 " -o " + out.string());
      ASSERT_EQ(run.status, 0) << what << " " << format << ": " << run.err;
      EXPECT_EQ(run.err, "");
      const std::string bytes = slurp(out);
      if (format == "svg") {
        EXPECT_EQ(skograph::test::xml_problem(bytes), "") << what;
      }
      if (format == "png") {
        EXPECT_GT(skograph::test::png_size(bytes).width, 0) << what;
      }
      if (format == "pdf") {
        EXPECT_TRUE(skograph::test::is_pdf(bytes)) << what;
      }
      if (format == "dot") {
        EXPECT_EQ(bytes.rfind("digraph ", 0), 0u) << what;
      }
    }
  }
  // --format wins over the extension.
  const auto out = dir / "picture.txt";
  ASSERT_EQ(run_cli("render " + example("graphs/fourbar.dot") + " --what digraph --format svg -o " +
                    out.string())
                .status,
            0);
  EXPECT_EQ(skograph::test::xml_problem(slurp(out)), "");
  std::filesystem::remove_all(dir);
}

TEST(RenderCli, SpyPlotsOfEachMatrix) {
  const auto dir = scratch_dir() / "spy";
  std::filesystem::create_directories(dir);
  for (const std::string matrix : {"M", "E", "A"}) {
    const auto out = dir / ("spy_" + matrix + ".png");
    const CliRun run = run_cli("render " + example("models/humanoid.yaml") +
                               " --what sparsity --matrix " + matrix + " -o " + out.string());
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.err, "");
    EXPECT_GT(skograph::test::png_size(slurp(out)).width, 0);
  }
  std::filesystem::remove_all(dir);
}

// The KKT system of a closed chain and its factor, at the zero state and a state file.
TEST(RenderCli, SpyPlotsOfTheKktSystem) {
  const auto dir = scratch_dir() / "spy_kkt";
  std::filesystem::create_directories(dir);
  for (const std::string matrix : {"K", "L_K"})
    for (const std::string& state :
         {std::string(), " --state " + example("models/fourbar_chain_state.json")}) {
      const auto out = dir / ("spy_" + matrix + ".png");
      const CliRun run =
          run_cli("render " + example("models/fourbar_chain.yaml") + " --what sparsity --matrix " +
                  matrix + state + " -o " + out.string());
      ASSERT_EQ(run.status, 0) << run.err;
      EXPECT_GT(skograph::test::png_size(slurp(out)).width, 0) << matrix << state;
    }
  std::filesystem::remove_all(dir);
}

// A bad request: exit status 2, exactly one line on stderr containing `expected`, nothing on
// stdout, and no file at `out`.
void expect_refused(const std::string& arguments, const std::string& expected,
                    const std::filesystem::path& out) {
  const CliRun run = run_cli("render " + arguments);
  EXPECT_EQ(run.status, 2) << arguments;
  EXPECT_EQ(line_count(run.err), 1) << run.err;
  EXPECT_NE(run.err.find(expected), std::string::npos) << run.err;
  EXPECT_EQ(run.out, "");
  EXPECT_FALSE(std::filesystem::exists(out)) << out;
}

TEST(RenderCli, BadRequestsAreOneLineAndExitStatusTwo) {
  const auto dir = scratch_dir() / "bad";
  std::filesystem::create_directories(dir);
  const std::string model = example("models/fourbar.yaml");
  const auto out = dir / "out.svg";
  expect_refused(model + " --what tree -o " + out.string(), "unknown --what 'tree'", out);
  expect_refused(model + " --what digraph --format gif -o " + out.string(),
                 "unknown --format 'gif'", out);
  expect_refused(model + " --what sparsity --matrix Q -o " + out.string(), "unknown --matrix 'Q'",
                 out);
  expect_refused(model + " --what sparsity --matrix M --ordering random -o " + out.string(),
                 "unknown --ordering 'random'", out);
  expect_refused(example("models/arm7.urdf") + " --what sparsity --matrix K -o " + out.string(),
                 "--matrix K needs a MODEL with loops", out);
  expect_refused(model + " --what sparsity --matrix L_K --ordering amd -o " + out.string(),
                 "--ordering applies to --what sparsity --matrix L only", out);
  expect_refused(model + " --what sparsity --matrix K --state " + (dir / "none.json").string() +
                     " -o " + out.string(),
                 "none.json", out);
  expect_refused(model + " --what digraph --matrix M -o " + out.string(),
                 "--matrix applies to --what sparsity only", out);
  expect_refused(model + " --what sparsity -o " + (dir / "m.dot").string(),
                 "a spy plot is an image", dir / "m.dot");
  expect_refused(model + " --what digraph -o " + (dir / "picture").string(),
                 "cannot tell the format", dir / "picture");
  expect_refused(model + " --what digraph", "no -o OUT given", out);
  expect_refused(model + " --what sparsity --size 5 -o " + out.string(), "--size must be", out);
  expect_refused(example("models/missing.yaml") + " --what digraph -o " + out.string(),
                 "missing.yaml", out);
  // The tree diagrams of a digraph without a spanning tree.
  const auto cycle = dir / "cycle.dot";
  std::ofstream(cycle) << "digraph { a -> b; b -> c; c -> a; }\n";
  expect_refused(cycle.string() + " --what segments -o " + out.string(), "no spanning tree", out);
  EXPECT_EQ(run_cli("render " + cycle.string() + " --what digraph -o " + out.string()).status, 0);
  std::filesystem::remove(out);
  // An output directory that cannot be written: a missing one, and a path through a file.
  const auto plain = dir / "plain_file";
  std::ofstream(plain) << "x";
  expect_refused(model + " --what digraph -o " + (dir / "missing" / "a.svg").string(),
                 "cannot write", dir / "missing" / "a.svg");
  expect_refused(model + " --what digraph -o " + (plain / "a.svg").string(), "cannot write",
                 plain / "a.svg");
  EXPECT_EQ(files_in(dir), (std::vector<std::string>{"cycle.dot", "plain_file"}));
  std::filesystem::remove_all(dir);
}

// A 3000-node chain-of-pairs tree on 200 pixels: drawn by density, said on stderr, exit 0.
TEST(RenderCli, AMatrixTooBigToDrawExactlyDegradesToDensity) {
  const auto dir = scratch_dir() / "big";
  std::filesystem::create_directories(dir);
  const auto dot = dir / "big.dot";
  {
    std::ofstream text(dot);
    text << "digraph big {\n";
    for (int k = 1; k < 3000; ++k) text << "  n" << (k - 1) / 2 << " -> n" << k << ";\n";
    text << "}\n";
  }
  const auto out = dir / "big.png";
  const CliRun run = run_cli("render " + dot.string() +
                             " --what sparsity --matrix A --size 200 -o " + out.string());
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("binned per pixel"), std::string::npos) << run.err;
  const skograph::test::PngSize size = skograph::test::png_size(slurp(out));
  EXPECT_GE(size.width, 200);
  EXPECT_LT(size.height, 400);  // 200 pixels of matrix plus the text bands, not 3000 rows
  std::filesystem::remove_all(dir);
}

TEST(AnalyzeCli, WritesTheReportAndEveryPicture) {
  const auto dir = scratch_dir() / "analysis" / "fourbar";
  const CliRun run =
      run_cli("analyze " + example("models/fourbar.yaml") + " --out " + dir.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<std::string> expected{
      "aggregated.svg", "digraph.svg",       "index.html",     "report.json",    "report.txt",
      "segments.svg",   "spanning-tree.svg", "sparsity-A.png", "sparsity-E.png", "sparsity-L.png",
      "sparsity-M.png", "sparsity-M_R.png",  "view.html"};
  EXPECT_EQ(files_in(dir), expected);
  // index.html holds the 3D view (view.html) in an iframe, escaped as an attribute.
  const std::string index = slurp(dir / "index.html");
  EXPECT_NE(index.find("<iframe class=\"view\" title=\"view.html\" srcdoc=\"&lt;!DOCTYPE html&gt;"),
            std::string::npos);
  EXPECT_NE(slurp(dir / "view.html").find("id=\"scene\""), std::string::npos);
  for (const std::string svg : {"digraph", "spanning-tree", "aggregated", "segments"})
    EXPECT_EQ(skograph::test::xml_problem(slurp(dir / (svg + ".svg"))), "") << svg;
  for (const std::string matrix : {"M", "E", "A", "L"})
    EXPECT_GT(skograph::test::png_size(slurp(dir / ("sparsity-" + matrix + ".png"))).width, 0);
  const auto report = nlohmann::json::parse(slurp(dir / "report.json"));
  EXPECT_EQ(report["name"], "fourbar");
  EXPECT_EQ(report["model"]["bodies"], 4);
  EXPECT_EQ(report["model"]["dofs"], 4);
  EXPECT_EQ(report["model"]["loops"], 1);
  EXPECT_EQ(report["model"]["couplings"], 1);
  EXPECT_EQ(report["graph"]["spanning_tree"]["cut_edges"].size(), 2u);
  // Four 1-dof bodies; segments {coupler, crank}, {rocker}, {rotor}: M has 4 + 1 + 1 nonzeros.
  EXPECT_EQ(report["sparsity"]["M"]["nonzeros"], 6);
  EXPECT_EQ(report["sparsity"]["E"]["rows"], 24);
  EXPECT_EQ(report["sparsity"]["segments"], 3);
  EXPECT_EQ(report["pictures"].size(), 10u);  // with sparsity-M_R.png and view.html
  EXPECT_NE(slurp(dir / "report.txt").find("aggregation sub-graphs"), std::string::npos);
  std::filesystem::remove_all(scratch_dir() / "analysis");
}

// A tree model's spanning tree and aggregated tree are its digraph: drawn once, and the
// report says why.
TEST(AnalyzeCli, ATreeModelsDigraphIsDrawnOnce) {
  const auto dir = scratch_dir() / "analysis" / "arm7";
  const CliRun run = run_cli("analyze " + example("models/arm7.urdf") + " --out " + dir.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<std::string> expected{
      "digraph.svg",    "index.html",     "report.json",    "report.txt",     "segments.svg",
      "sparsity-A.png", "sparsity-E.png", "sparsity-L.png", "sparsity-M.png", "view.html"};
  EXPECT_EQ(files_in(dir), expected);
  EXPECT_NE(slurp(dir / "report.txt")
                .find("(no spanning-tree or aggregated diagram: without cut edges both are the "
                      "digraph itself)"),
            std::string::npos);
  std::filesystem::remove_all(scratch_dir() / "analysis");
}

TEST(AnalyzeCli, AnOutputDirectoryThatCannotBeCreatedIsOneLineAndNoFiles) {
  const auto dir = scratch_dir() / "blocked";
  std::filesystem::create_directories(dir);
  const auto plain = dir / "plain_file";
  std::ofstream(plain) << "x";
  for (const auto& target : {plain, plain / "sub"}) {
    const CliRun run =
        run_cli("analyze " + example("graphs/fourbar.dot") + " --out " + target.string());
    EXPECT_EQ(run.status, 2);
    EXPECT_EQ(line_count(run.err), 1) << run.err;
    EXPECT_NE(run.err.find(target.string()), std::string::npos) << run.err;
    EXPECT_EQ(run.out, "");
  }
  EXPECT_EQ(files_in(dir), (std::vector<std::string>{"plain_file"}));
  const CliRun no_dir = run_cli("analyze " + example("graphs/fourbar.dot"));
  EXPECT_EQ(no_dir.status, 2);
  EXPECT_NE(no_dir.err.find("no --out DIR given"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// Graphviz's layout grows as the square of the node count, so digraphs over --max-diagram-nodes
// get their diagrams as DOT text: exactly what `render --format dot` writes, re-readable, listed in
// report.json, with a note; at the limit and with 0 (no limit) they are drawn.
TEST(AnalyzeCli, DigraphsOverTheDiagramLimitGetDotDiagramsAndANote) {
  const std::string model = example("models/fourbar.yaml");  // 5 nodes: world and four links
  const auto dir = scratch_dir() / "analysis_limit";
  std::filesystem::remove_all(dir);
  const CliRun run =
      run_cli("analyze " + model + " --out " + dir.string() + " --max-diagram-nodes 4");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("the digraph has 5 nodes, more than --max-diagram-nodes 4"),
            std::string::npos)
      << run.err;
  const std::vector<std::string> expected{
      "aggregated.dot", "digraph.dot",       "index.html",     "report.json",    "report.txt",
      "segments.dot",   "spanning-tree.dot", "sparsity-A.png", "sparsity-E.png", "sparsity-L.png",
      "sparsity-M.png", "sparsity-M_R.png",  "view.html"};
  EXPECT_EQ(files_in(dir), expected);
  const auto report = nlohmann::json::parse(slurp(dir / "report.json"));
  EXPECT_EQ(report["pictures"][0], "digraph.dot");
  const auto notes = report["notes"].get<std::vector<std::string>>();
  EXPECT_EQ(std::count_if(notes.begin(), notes.end(),
                          [](const std::string& note) {
                            return note.find("--max-diagram-nodes 0 draws") != std::string::npos;
                          }),
            1);
  for (const std::string kind : {"digraph", "spanning-tree", "aggregated", "segments"}) {
    const auto reference = dir / (kind + "-render.gv");
    ASSERT_EQ(
        run_cli("render " + model + " --what " + kind + " --format dot -o " + reference.string())
            .status,
        0);
    EXPECT_EQ(slurp(dir / (kind + ".dot")), slurp(reference)) << kind;
    std::istringstream text(slurp(dir / (kind + ".dot")));
    EXPECT_NO_THROW(skograph::read_dot(text, kind + ".dot")) << kind;
  }
  std::istringstream digraph(slurp(dir / "digraph.dot"));
  EXPECT_EQ(skograph::read_dot(digraph, "digraph.dot").node_count(), 5);

  for (const std::string limit : {"5", "0"}) {
    const auto drawn = scratch_dir() / ("analysis_limit_" + limit);
    const CliRun at_limit =
        run_cli("analyze " + model + " --out " + drawn.string() + " --max-diagram-nodes " + limit);
    ASSERT_EQ(at_limit.status, 0) << at_limit.err;
    EXPECT_EQ(at_limit.err.find("--max-diagram-nodes"), std::string::npos) << at_limit.err;
    EXPECT_EQ(skograph::test::xml_problem(slurp(drawn / "digraph.svg")), "") << limit;
    EXPECT_FALSE(std::filesystem::exists(drawn / "digraph.dot")) << limit;
    std::filesystem::remove_all(drawn);
  }
  for (const std::string bad : {"-1", "many", "2.5"}) {
    const CliRun rejected =
        run_cli("analyze " + model + " --out " + dir.string() + "_bad --max-diagram-nodes " + bad);
    cli_test::expect_one_line_error(rejected, "--max-diagram-nodes");
    EXPECT_FALSE(std::filesystem::exists(dir.string() + "_bad"));
  }
  EXPECT_EQ(run_cli("demo --max-diagram-nodes 3").status, 2);  // demo's model is fixed
  std::filesystem::remove_all(dir);
}

TEST(DemoCli, AnalyzesTheBuiltInGearedFourBar) {
  const auto dir = scratch_dir() / "demo";
  const CliRun run = run_cli("demo --out " + dir.string());
  ASSERT_EQ(run.status, 0) << run.err;
  // One line, as analyze prints: the report is in the files.
  EXPECT_EQ(run.out, "wrote 13 files to " + dir.string() +
                         ": report.txt report.json index.html digraph.svg spanning-tree.svg "
                         "aggregated.svg segments.svg sparsity-M.png sparsity-E.png sparsity-A.png "
                         "sparsity-L.png sparsity-M_R.png view.html\n");
  EXPECT_NE(slurp(dir / "report.txt").find("aggregation sub-graphs"), std::string::npos);
  const auto report = nlohmann::json::parse(slurp(dir / "report.json"));
  EXPECT_EQ(report["name"], "fourbar");
  EXPECT_EQ(report["graph"]["aggregates"].size(), 1u);
  // The closed-chain showcase: the embedded model's aggregate is the graph layer's.
  EXPECT_EQ(report["embedding"]["aggregates"].size(), 1u);
  EXPECT_EQ(report["embedding"]["closed"], true);
  EXPECT_NE(slurp(dir / "report.txt").find("M_R"), std::string::npos);
  EXPECT_EQ(run_cli("demo extra").status, 2);
  std::filesystem::remove_all(dir);
}

}  // namespace
