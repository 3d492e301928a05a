// Flexible bodies as the files give them: a link's `flexible:` fields, the modal data file, the
// beam generator and the top-level map beside `urdf:` read into Link::flexible; frequencies and
// damping ratios against their closed forms, the two formats against each other, the beam's link
// against a uniform rod; every bad input with file and line; a model taking them.
#include <gtest/gtest.h>

#include <cmath>

#include "skograph/io/modal_file.hpp"
#include "skograph/io/yaml_reader.hpp"
#include "skograph/model/model.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using io_test::expect_input_error;
using io_test::write_file;

// A hub on a revolute joint carrying a two-mode panel (lines matter: the errors name them).
std::string panel_model(const std::string& flexible) {
  return "links:\n"
         "  - {name: hub, mass: 5.0, inertia: {ixx: 0.5, iyy: 0.5, izz: 0.5}}\n"
         "  - name: panel\n"
         "    mass: 12.0\n"
         "    com: [0.9, 0, 0]\n"
         "    inertia: {ixx: 0.4, iyy: 3.3, izz: 3.7}\n"
         "    flexible:\n" +
         flexible +
         "  - {name: tip, mass: 0.5, inertia: {ixx: 0.001, iyy: 0.001, izz: 0.001}}\n"
         "joints:\n"
         "  - {name: spin, type: revolute, parent: world, child: hub, axis: [0, 0, 1]}\n"
         "  - {name: hinge, type: revolute, parent: hub, child: panel, axis: [0, 0, 1]}\n"
         "  - {name: tip_mount, type: fixed, parent: panel, child: tip, origin: {xyz: [1.8, 0, "
         "0]}}\n";
}

const std::string kPanelFields =  // lines 8 .. 13
    "      modal_mass: [[1, 0], [0, 2]]\n"
    "      frequencies_hz: [0.8, 2.9]\n"
    "      damping_ratios: [0.005, 0.02]\n"
    "      coupling: [[0, 0], [0, -0.3], [1.2, 0.4], [0, 0], [2.1, 0.9], [0, 0]]\n"
    "      nodes:\n"
    "        tip_mount: [[0, 0], [0, 0], [1.1, 2.0], [0, 0], [1.9, -1.4], [0, 0]]\n";

const std::string kPanelFile =
    "# the panel's modes, as a finite-element code would export them\n"
    "modes 2\n"
    "modal_mass\n"
    "1 0\n"
    "0 2   # the second mode not mass-normalized\n"
    "frequencies_hz\n"
    "0.8 2.9\n"
    "damping_ratios\n"
    "0.005 0.02\n"
    "coupling\n"
    "0 0\n0 -0.3\n1.2 0.4\n0 0\n2.1 0.9\n0 0\n"
    "node tip_mount\n"
    "0 0\n0 0\n1.1 2.0\n0 0\n1.9 -1.4\n0 0\n";

const ModalBody& flexible_of(const Mechanism& mechanism, const std::string& link) {
  const int k = mechanism.find_link(link);
  EXPECT_GE(k, 0);
  EXPECT_TRUE(mechanism.links[static_cast<std::size_t>(k)].flexible);
  return *mechanism.links[static_cast<std::size_t>(k)].flexible;
}

TEST(FlexibleInput, FrequenciesAndDampingRatiosGiveTheirClosedForms) {
  const Mechanism mechanism = parse_yaml(panel_model(kPanelFields), "panel.yaml");
  const ModalBody& body = flexible_of(mechanism, "panel");
  ASSERT_EQ(body.modes(), 2);
  // K = diag(omega^2 m), D = diag(2 zeta omega m) with omega = 2 pi f.
  const double w1 = 2 * M_PI * 0.8, w2 = 2 * M_PI * 2.9;
  EXPECT_NEAR(body.modal_stiffness(0, 0), w1 * w1 * 1.0, 1e-12);
  EXPECT_NEAR(body.modal_stiffness(1, 1), w2 * w2 * 2.0, 1e-11);
  EXPECT_EQ(body.modal_stiffness(0, 1), 0.0);
  EXPECT_NEAR(body.modal_damping(0, 0), 2 * 0.005 * w1 * 1.0, 1e-15);
  EXPECT_NEAR(body.modal_damping(1, 1), 2 * 0.02 * w2 * 2.0, 1e-14);
  EXPECT_EQ(body.coupling(4, 0), 2.1);
  ASSERT_NE(body.node("tip_mount"), nullptr);
  EXPECT_EQ(body.node("tip_mount")->influence(4, 1), -1.4);
  EXPECT_EQ(body.node("hinge"), nullptr);  // the own hinge: clamped, no entry needed
  EXPECT_EQ(body.source_line, 8);
  EXPECT_FALSE(mechanism.links[0].flexible);  // the hub stays rigid
}

TEST(FlexibleInput, TheModalDataFileReadsAsTheSameFieldsInYaml) {
  write_file("panel_modes.txt", kPanelFile);
  const std::string model =
      write_file("panel_from_file.yaml", panel_model("      file: panel_modes.txt\n"));
  const Mechanism yaml = parse_yaml(panel_model(kPanelFields), "panel.yaml");
  const ModalBody& from_yaml = flexible_of(yaml, "panel");
  const Mechanism mechanism = read_yaml_file(model);
  const ModalBody& from_file = flexible_of(mechanism, "panel");
  EXPECT_EQ(from_file.modal_mass, from_yaml.modal_mass);
  EXPECT_EQ(from_file.modal_stiffness, from_yaml.modal_stiffness);
  EXPECT_EQ(from_file.modal_damping, from_yaml.modal_damping);
  EXPECT_EQ(from_file.coupling, from_yaml.coupling);
  EXPECT_EQ(from_file.node("tip_mount")->influence, from_yaml.node("tip_mount")->influence);
  EXPECT_EQ(from_file.source_file, model);  // the line that names the modal data file
  EXPECT_EQ(from_file.source_line, 8);
  // The modal data file's problems name the model's line, then the file's.
  std::string bad = kPanelFile;
  bad.replace(bad.find("0.8 2.9"), 7, "0.8 -2.9");
  const std::string modes = write_file("bad_modes.txt", bad);
  const std::string bad_model =
      write_file("panel_bad_file.yaml", panel_model("      file: bad_modes.txt\n"));
  expect_input_error([&] { read_yaml_file(bad_model); }, bad_model, 8,
                     "link 'panel' flexible file: " + modes +
                         ":6: 'frequencies_hz' has an entry that is negative");
  // So do the body's problems on its link, with the modal data file named.
  std::string stray = kPanelFile;
  stray.replace(stray.find("node tip_mount"), 14, "node elbow");
  write_file("stray_modes.txt", stray);
  const std::string stray_model =
      write_file("panel_stray.yaml", panel_model("      file: stray_modes.txt\n"));
  expect_input_error([&] { read_yaml_file(stray_model); }, stray_model, 8,
                     "node 'elbow' names no joint or loop of the link");
}

TEST(FlexibleInput, LoopsOnAFlexibleLinkComeFromTheModelFile) {
  const std::string model = write_file("panel_for_loops.yaml", panel_model(kPanelFields));
  ReadOptions options;
  options.loops_file = write_file("panel_loops.yaml", "closed_loop: [[tip, world]]\ntype: [6d]\n");
  EXPECT_NO_THROW(load_mechanism(model, options));  // the tip is rigid
  options.loops_file =
      write_file("panel_loops2.yaml", "closed_loop: [[panel, world]]\ntype: [6d]\n");
  expect_input_error([&] { load_mechanism(model, options); }, options.loops_file, 1,
                     "loop 'loop1' attaches to flexible link 'panel': give it in the model file");
}

TEST(FlexibleInput, ABeamLinkIsAUniformRodWithClampedFreeModes) {
  const std::string beam =
      "      beam: {length: 1.8, EI_y: 150.0, EI_z: 90.0, rho_A: 0.8, modes: 2, axis: x, "
      "damping_ratio: 0.01}\n";
  std::string model = panel_model(beam);
  // The beam brings its own mass data: drop the panel's.
  for (const char* line : {"    mass: 12.0\n", "    com: [0.9, 0, 0]\n",
                           "    inertia: {ixx: 0.4, iyy: 3.3, izz: 3.7}\n"})
    model.erase(model.find(line), std::string(line).size());
  const Mechanism mechanism = parse_yaml(model, "beam.yaml");
  const Link& link = mechanism.links[static_cast<std::size_t>(mechanism.find_link("panel"))];
  const double L = 1.8, m = 0.8 * L, r = L / 50.0;
  EXPECT_NEAR(link.mass, m, 1e-15);
  EXPECT_NEAR(link.center_of_mass.x(), L / 2, 1e-15);
  EXPECT_NEAR(link.inertia(1, 1), m * L * L / 12.0, 1e-14);  // a slender rod about its centre
  EXPECT_NEAR(link.inertia(0, 0), m * r * r / 2.0, 1e-18);   // the solid section about the axis
  const ModalBody& body = flexible_of(mechanism, "panel");
  ASSERT_EQ(body.modes(), 4);  // two per bending plane
  // omega_1 = (1.87510407)^2 sqrt(EI / (rho_A L^4)) in each plane.
  const double root = 1.8751040687119611;
  EXPECT_NEAR(std::sqrt(body.modal_stiffness(0, 0)),
              root * root * std::sqrt(150.0 / (0.8 * std::pow(L, 4))), 1e-9);
  EXPECT_NEAR(std::sqrt(body.modal_stiffness(2, 2)),
              root * root * std::sqrt(90.0 / (0.8 * std::pow(L, 4))), 1e-9);
  EXPECT_NEAR(body.modal_damping(0, 0), 2 * 0.01 * std::sqrt(body.modal_stiffness(0, 0)), 1e-14);
  // A clamped-free mode normalized to mean square 1 is 2 at the free end (+-), so the mass
  // normalized first mode deflects the tip by 2 / sqrt(m).
  const ModalNode* tip = body.node("tip_mount");
  ASSERT_NE(tip, nullptr);
  EXPECT_NEAR(std::abs(tip->influence.col(0).tail<3>().norm()), 2 / std::sqrt(m), 1e-12);
  EXPECT_NEAR(std::abs(tip->influence.col(2).tail<3>().norm()), 2 / std::sqrt(m), 1e-12);
}

TEST(FlexibleInput, BesideAUrdfTheTopLevelMapNamesTheLink) {
  write_file("flexible_pair.urdf", R"(<robot name="pair">
  <link name="base"><inertial><mass value="4"/>
    <inertia ixx="0.3" ixy="0" ixz="0" iyy="0.3" iyz="0" izz="0.3"/></inertial></link>
  <link name="boom"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="boom"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)");
  const std::string model =
      write_file("flexible_pair.yaml",
                 "urdf: flexible_pair.urdf\n"
                 "flexible:\n"
                 "  boom: {beam: {length: 2.0, EI_y: 150.0, EI_z: 150.0, rho_A: 0.8, modes: 3}}\n");
  const Mechanism mechanism = read_yaml_file(model);
  EXPECT_EQ(flexible_of(mechanism, "boom").modes(), 6);
  EXPECT_NEAR(mechanism.links[static_cast<std::size_t>(mechanism.find_link("boom"))].mass, 1.6,
              1e-15);
  // A beam on a link whose URDF gives mass data is refused.
  expect_input_error(
      [&] {
        parse_yaml(
            "urdf: flexible_pair.urdf\nflexible:\n  base: {beam: {length: 1, EI_y: 1, "
            "EI_z: 1, rho_A: 1, modes: 1}}\n",
            "m.yaml", io_test::scratch_dir().string());
      },
      "m.yaml", 3, "has mass data and a beam");
}

TEST(FlexibleInput, ModelsTakeThemWithTheirModalCoordinatesAfterTheJoint) {
  const std::string path = write_file("panel_model.yaml", panel_model(kPanelFields));
  const Model model = load_model(path);
  EXPECT_EQ(model.dof_names(),
            (std::vector<std::string>{"spin", "hinge", "panel:eta1", "panel:eta2"}));
  // The tip welded to the panel keeps a node of its own, which the panel's modes move.
  EXPECT_EQ(model.tree().node_count(), 3);
  EXPECT_EQ(model.tree().modes(1), 2);
}

// Replaces `from` by `to` in the panel model's flexible fields.
std::string panel_with(const std::string& from, const std::string& to) {
  std::string fields = kPanelFields;
  const std::size_t at = fields.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  fields.replace(at, from.size(), to);
  return panel_model(fields);
}

TEST(FlexibleInput, BadFieldsNameTheFileLineAndProblem) {
  const auto expect = [](const std::string& text, int line, const std::string& problem) {
    expect_input_error([&] { parse_yaml(text, "bad.yaml"); }, "bad.yaml", line, problem);
  };
  // Matrices in place of frequencies and ratios (which need a diagonal modal mass).
  const auto matrices = [](const std::string& mass) {
    std::string text =
        panel_with("frequencies_hz: [0.8, 2.9]", "modal_stiffness: [[3, 1], [1, 3]]");
    text.replace(text.find("damping_ratios: [0.005, 0.02]"), 29, "modal_damping: [[0, 0], [0, 0]]");
    text.replace(text.find("[[1, 0], [0, 2]]"), 16, mass);
    return text;
  };
  expect(matrices("[[1, 0.5], [0, 2]]"), 8, "modal mass is not symmetric");
  expect(matrices("[[1, 2], [2, 1]]"), 8, "modal mass is not positive definite");
  EXPECT_NO_THROW(parse_yaml(matrices("[[1, 0.1], [0.1, 2]]"), "good.yaml"));
  expect(panel_with("[[1, 0], [0, 2]]", "[[1, 0], [0]]"), 8, "row 2 has 1 numbers");
  expect(panel_with("frequencies_hz: [0.8, 2.9]", "modal_stiffness: [[1, 0], [0, -1]]"), 9,
         "negative stiffness");
  expect(panel_with("frequencies_hz: [0.8, 2.9]", "frequencies_hz: [0.8]"), 9,
         "has 1 entries, not one per mode (2)");
  expect(panel_with("[[1, 0], [0, 2]]", "[[1, 0.1], [0.1, 2]]"), 9, "needs a diagonal modal mass");
  expect(panel_with("[1.2, 0.4], [0, 0], [2.1, 0.9], [0, 0]]", "[1.2, 0.4], [0, 0], [2.1, 0.9]]"),
         11, "the coupling is 5 x 2, not 6 x 2");
  expect(panel_with("tip_mount: [[0, 0], [0, 0], [1.1, 2.0], [0, 0], [1.9, -1.4], [0, 0]]",
                    "elbow: [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0]]"),
         13, "node 'elbow' names no joint or loop of the link");
  expect(
      panel_with("        tip_mount: [[0, 0], [0, 0], [1.1, 2.0], [0, 0], [1.9, -1.4], [0, 0]]\n",
                 "        hinge: [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0]]\n"),
      8, "joint 'tip_mount' attaches to it without a node");
  // A coupling larger than the mass allows: the rigid and modal fields cannot be one body's.
  expect(panel_with("[2.1, 0.9]", "[9.0, 0.9]"), 8, "mass matrix [[rigid inertia, coupling]");
  expect(panel_with("      modal_mass: [[1, 0], [0, 2]]\n",
                    "      file: x.txt\n      modal_mass: [[1, 0], [0, 2]]\n"),
         8, "give the modal fields, a 'file' or a 'beam', one of the three");
  expect(panel_model("      beam: {length: 0, EI_y: 1, EI_z: 1, rho_A: 1, modes: 1}\n"), 8,
         "beam length must be positive");
  expect(
      "links: [{name: a, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}]\njoints: []\n"
      "flexible: {a: {}}\n",
      3, "a top-level 'flexible' map goes with 'urdf'");
  expect(panel_with("      nodes:\n",
                    "      nodes:\n        tip_mount: [[0, 0], [0, 0], [0, 0], [0, 0], [0, 0], "
                    "[0, 0]]\n"),
         14, "node 'tip_mount' given twice");
  std::string many = "[1";
  for (int k = 0; k < 1000; ++k) many += ", 1";
  expect(panel_with("[0.8, 2.9]", many + "]"), 9, "has 1001 entries (at most 1000)");
}

TEST(FlexibleInput, ABeamNeedsItsJointsOnItsAxis) {
  const std::string beam = "      beam: {length: 1.0, EI_y: 1, EI_z: 1, rho_A: 1, modes: 1}\n";
  std::string model = panel_model(beam);
  for (const char* line : {"    mass: 12.0\n", "    com: [0.9, 0, 0]\n",
                           "    inertia: {ixx: 0.4, iyy: 3.3, izz: 3.7}\n"})
    model.erase(model.find(line), std::string(line).size());
  // tip_mount sits at 1.8 along x, past the 1.0 m beam's end.
  expect_input_error([&] { parse_yaml(model, "beam.yaml"); }, "beam.yaml", 5,
                     "joint 'tip_mount' attaches off the beam");
  expect_input_error([&] { parse_yaml(panel_model(beam), "beam.yaml"); }, "beam.yaml", 8,
                     "has mass data and a beam");
}

TEST(FlexibleInput, BadModalFilesNameTheFileLineAndProblem) {
  const auto expect = [](const std::string& text, int line, const std::string& problem) {
    expect_input_error([&] { parse_modal_file(text, "modes.txt"); }, "modes.txt", line, problem);
  };
  const auto with = [](const std::string& from, const std::string& to) {
    std::string text = kPanelFile;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  expect("", 0, "no 'modes N' line");
  expect("modal_mass\n1\n", 1, "must start with 'modes N'");
  expect(with("modes 2", "modes 2.5"), 2, "one whole number from 1 to 1000");
  expect(with("modes 2", "modes 100000"), 2, "one whole number from 1 to 1000");
  expect(with("0 2   #", "0 x   #"), 5, "'x' is not a number");
  expect(with("0.8 2.9", "0.8 inf"), 7, "not a finite number");
  expect(with("0.8 2.9", "0.8 2.9 1"), 7, "row has 3 numbers, not 2");
  expect(with("coupling\n0 0\n", "coupling\n"), 10, "'coupling' has 5 rows, not 6");
  expect(with("coupling", "couplings"), 10, "unknown section 'couplings'");
  expect(with("node tip_mount", "node"), 17, "a node section is 'node NAME'");
  expect(with("damping_ratios", "modal_mass"), 8, "'modal_mass' given twice (first at line 3)");
  expect(with("damping_ratios\n0.005 0.02", "damping_ratios\n0.005 -0.02"), 8,
         "'damping_ratios' has an entry that is negative");
  expect(with("modal_mass\n1 0\n0 2", "modal_mass\n1 0\n0 -2"), 3, "not positive definite");
  expect(std::string("modes 1\nfrequencies_hz\n1\n"), 1, "no 'coupling'");
}

}  // namespace
}  // namespace skograph
