// What the pictures say about a closed chain: the digraph names every joint on its edge
// and marks the joints of the independent coordinates, a cut edge towards a deeper node shapes the
// layout (the Stewart platform below all six legs), and the rows of M_R's spy plot are named by
// their independent coordinates, checked against the dense reduced mass matrix by name.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "skograph/model/base_change.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/report/embedding_analysis.hpp"
#include "skograph/report/pictures.hpp"
#include "skograph/report/report_input.hpp"
#include "skograph/sparse/sparse_assembly.hpp"
#include "support/cli_support.hpp"
#include "support/source_paths.hpp"

namespace skograph {
namespace {

using cli_test::example_model;

// The DOT statement of the edge FROM -> TO (its attribute list), or "" when there is none.
std::string edge_statement(const std::string& dot, const std::string& from, const std::string& to) {
  const std::string head = "\"" + from + "\" -> \"" + to + "\"";
  const std::size_t at = dot.find(head);
  if (at == std::string::npos) return "";
  return dot.substr(at, dot.find('\n', at) - at);
}

// An edge label's lines as the DOT text writes them (rows of an HTML-like table).
std::string label_rows(const std::vector<std::string>& lines) {
  std::string rows;
  for (const std::string& line : lines) rows += "<TR><TD>" + line + "</TD></TR>";
  return rows;
}

std::string digraph_dot(const std::string& file, const ReadOptions& options) {
  const report::ReportInput input = report::load_report_input(file, options);
  return report::diagram_picture(input, viz::DiagramKind::kDigraph, viz::ImageFormat::kDot).bytes;
}

// The joint a dof name belongs to: the name itself when it is a joint, else the part before the
// last ':' ("top1:2").
std::string joint_of_dof(const Mechanism& mechanism, const std::string& dof) {
  for (const Joint& joint : mechanism.joints)
    if (joint.name == dof) return dof;
  return dof.substr(0, dof.rfind(':'));
}

TEST(PictureLabels, StewartDigraphNamesJointsAndMarksTheLegs) {
  ReadOptions options;
  options.independent = {"leg1", "leg2", "leg3", "leg4", "leg5", "leg6"};
  const std::string dot = digraph_dot(example_model("stewart_platform.yaml"), options);
  const std::string marked = "color=\"#08519c\"";
  for (int leg = 1; leg <= 6; ++leg) {
    const std::string n = std::to_string(leg);
    // The prismatic leg is marked and named; the universal joint's revolutes are named only.
    const std::string prismatic = edge_statement(dot, "lower" + n, "upper" + n);
    EXPECT_NE(prismatic.find(label_rows({"leg" + n, "(prismatic)"})), std::string::npos)
        << prismatic;
    EXPECT_NE(prismatic.find(marked), std::string::npos) << prismatic;
    const std::string revolute = edge_statement(dot, "cross" + n, "lower" + n);
    EXPECT_NE(revolute.find(label_rows({"u" + n + "b", "(revolute)"})), std::string::npos)
        << revolute;
    EXPECT_EQ(revolute.find(marked), std::string::npos) << revolute;
    // Legs 2-6 close at the platform, one level below their upper tubes: these cut edges take
    // part in the layout and carry ordinary labels (not external ones that may overlap).
    if (leg > 1) {
      const std::string loop = edge_statement(dot, "upper" + n, "platform");
      EXPECT_EQ(loop.find("constraint=false"), std::string::npos) << loop;
      EXPECT_NE(loop.find("label=<"), std::string::npos) << loop;
      EXPECT_NE(loop.find(label_rows({"top" + n, "(spherical)"})), std::string::npos) << loop;
      EXPECT_EQ(loop.find("xlabel"), std::string::npos) << loop;
    }
  }
  // The tree's spherical joint is named as the loops' are.
  EXPECT_NE(edge_statement(dot, "upper1", "platform").find(label_rows({"top1", "(spherical)"})),
            std::string::npos);
  EXPECT_NE(dot.find("blue, bold: joints of the independent coordinates (as given"),
            std::string::npos);
  // The spanning tree marks the same joints.
  const report::ReportInput input =
      report::load_report_input(example_model("stewart_platform.yaml"), options);
  const std::string tree =
      report::diagram_picture(input, viz::DiagramKind::kSpanningTree, viz::ImageFormat::kDot).bytes;
  EXPECT_NE(edge_statement(tree, "lower3", "upper3").find(marked), std::string::npos);
  EXPECT_EQ(edge_statement(tree, "cross3", "lower3").find(marked), std::string::npos);
}

// Without given coordinates the marks are the selection at the zero configuration, which
// `skograph analyze` reports: every marked joint holds one of those dofs and every such dof's
// joint is marked; a spherical joint partly independent says how many of its dofs are.
TEST(PictureLabels, UnmarkedModelsShowTheZeroConfigurationSelection) {
  int partly_independent = 0;  // joints with some of their dofs independent (the suspension's)
  for (const std::string name : {"stewart_platform.yaml", "suspension.yaml", "delta_robot.yaml"}) {
    SCOPED_TRACE(name);
    const std::string file = example_model(name);
    const std::string dot = digraph_dot(file, {});
    const Model model = load_model(file);
    const report::EmbeddingAnalysis zero = report::embedding_analysis(model, "");
    ASSERT_TRUE(zero.closed);
    std::map<std::string, int> independent_dofs;  // per joint
    for (const std::string& dof : zero.independent)
      ++independent_dofs[joint_of_dof(model.source_mechanism(), dof)];
    for (const Joint& joint : model.source_mechanism().joints) {
      const std::string parent =
          joint.parent < 0
              ? "world"
              : model.source_mechanism().links[static_cast<std::size_t>(joint.parent)].name;
      const std::string child =
          model.source_mechanism().links[static_cast<std::size_t>(joint.child)].name;
      const std::string edge = edge_statement(dot, parent, child);
      ASSERT_FALSE(edge.empty()) << joint.name;
      const auto it = independent_dofs.find(joint.name);
      EXPECT_EQ(edge.find("#08519c") != std::string::npos, it != independent_dofs.end()) << edge;
      EXPECT_NE(edge.find("<TR><TD>" + joint.name + "</TD></TR><TR><TD>(" +
                          joint_type_name(joint.type) + ")</TD></TR>"),
                std::string::npos)
          << edge;
      const int dofs = joint_dof_count(joint.type);
      if (it != independent_dofs.end() && it->second < dofs) {
        ++partly_independent;
        EXPECT_NE(
            edge.find(std::to_string(it->second) + " of " + std::to_string(dofs) + " independent"),
            std::string::npos)
            << edge;
      }
    }
    EXPECT_NE(dot.find("(selected at the zero configuration)"), std::string::npos);
  }
  EXPECT_GT(partly_independent, 0);
}

// M_R's rows by name, in the order the spy plot draws them (the aggregated forest's post-order):
// each row block of an aggregate holds dofs of joints whose child links are its members (the
// report's member lists, a separate path), and the embedded model's mass matrix, read through the
// loading path's own map of its hinge entries (io model_sko), equals the dense reduced mass matrix
// of `skograph dynamics` (composite inertias and X) at the rows and columns of the same names.
TEST(PictureLabels, ReducedMassRowsAreNamedByTheirIndependentCoordinates) {
  for (const std::string name :
       {"fourbar_chain.yaml", "suspension.yaml", "stewart_platform.yaml", "geared_links.yaml"}) {
    SCOPED_TRACE(name);
    const std::string file = example_model(name);
    const std::string state = file.substr(0, file.size() - 5) + "_state.json";
    const Model model = load_model(file);
    const Mechanism& mechanism = model.source_mechanism();
    const report::EmbeddingAnalysis analysis = report::embedding_analysis(model, state);
    ASSERT_TRUE(analysis.closed);
    ASSERT_TRUE(analysis.topology);
    const viz::SkoTopology& topology = *analysis.topology;
    ASSERT_EQ(static_cast<int>(analysis.row_names.size()), topology.hinge_layout.total());
    for (const report::EmbeddingAnalysis::Aggregate& aggregate : analysis.aggregates) {
      const int id = *aggregate.node - 1;
      for (int r = topology.hinge_layout.offset(id);
           r < topology.hinge_layout.offset(id) + topology.hinge_layout.dim(id); ++r) {
        const std::string joint = joint_of_dof(mechanism, analysis.row_names[r]);
        const auto it = std::find_if(mechanism.joints.begin(), mechanism.joints.end(),
                                     [&](const Joint& j) { return j.name == joint; });
        ASSERT_NE(it, mechanism.joints.end()) << analysis.row_names[r];
        const std::string& child = mechanism.links[static_cast<std::size_t>(it->child)].name;
        EXPECT_NE(std::find(aggregate.links.begin(), aggregate.links.end(), child),
                  aggregate.links.end())
            << analysis.row_names[r] << " in aggregate " << *aggregate.node;
      }
    }
    ModelData data(model);
    const Eigen::VectorXd q = read_model_state(state, model).q;
    const Eigen::MatrixXd dense = reduced_mass_matrix(model, data, q);
    std::map<std::string, Eigen::Index> column;
    for (std::size_t a = 0; a < analysis.independent.size(); ++a)
      column[analysis.independent[a]] = static_cast<Eigen::Index>(a);
    const ModelSko sko = model_sko(model, data, q, true);
    const Eigen::MatrixXd embedded = Eigen::MatrixXd(sparse_mass_matrix(*sko.sko));
    // Plotted row -> the embedded model's hinge entry: node by node in the topology's order.
    std::vector<Eigen::Index> entry;
    for (const int k : topology.tree_node)
      for (int j = 0; j < sko.sko->hinge_dim(k); ++j)
        entry.push_back(sko.sko->structure().hinge.offset(k) + j);
    ASSERT_EQ(entry.size(), analysis.row_names.size());
    for (std::size_t r = 0; r < entry.size(); ++r) {
      EXPECT_EQ(analysis.row_names[r], sko.row_names[static_cast<std::size_t>(
                                           sko.hinge_rows[static_cast<std::size_t>(entry[r])])]);
      for (std::size_t c = 0; c < entry.size(); ++c)
        EXPECT_NEAR(embedded(entry[r], entry[c]),
                    dense(column.at(analysis.row_names[r]), column.at(analysis.row_names[c])),
                    1e-12 * (1 + dense.cwiseAbs().maxCoeff()))
            << analysis.row_names[r] << ", " << analysis.row_names[c];
    }
  }
}

// A layout is a function of the DOT text: the kangaroo-like biped's digraph (many clusters, which
// Graphviz 2.43 had ordered by the addresses of their names) laid out after different amounts of
// memory were taken and kept gives the same picture each time.
TEST(PictureLabels, ALayoutDependsOnTheDotTextAlone) {
  const auto folder = testing_support::kParallelRobots / "kangaroo_like_2legs";
  if (!std::filesystem::exists(folder)) GTEST_SKIP() << "../shared/robots is absent";
  ReadOptions options;
  options.loops_file = (folder / "robot.yaml").string();
  const report::ReportInput input =
      report::load_report_input((folder / "robot.urdf").string(), options);
  auto drawn = [&] {
    return report::diagram_picture(input, viz::DiagramKind::kDigraph, viz::ImageFormat::kSvg).bytes;
  };
  const std::string first = drawn();
  std::vector<std::string> kept;
  for (int round = 1; round <= 4; ++round) {
    // Blocks of several sizes held while the next layout runs move where its strings land.
    for (int k = 0; k < 50 * round; ++k)
      kept.emplace_back(static_cast<std::size_t>(17 + 13 * k), 'x');
    EXPECT_EQ(drawn(), first) << "round " << round;
  }
}

}  // namespace
}  // namespace skograph
