// Hostile input through the real binary: every finding of the fuzzing campaign, each
// as a file that once crashed the program or broke the one-line contract, now exit status 2 with
// one line naming the file (and line) and the problem, escaped; nothing on stdout.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_support.hpp"

namespace {

using cli_test::example_model;
using cli_test::run_cli;

std::string write_bytes(const std::string& name, const std::string& bytes) {
  const auto path = skograph::io_test::scratch_dir() / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

std::string repeated(const std::string& text, int count) {
  std::string out;
  out.reserve(text.size() * static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) out += text;
  return out;
}

struct HostileCase {
  std::string name;     // file name (the extension picks the reader)
  std::string bytes;    // its content
  std::string command;  // "graph" or "dynamics"
  std::string message;  // what the one line says after "FILE"
};

// The contract: exit 2, nothing on stdout, exactly one stderr line "skograph COMMAND: FILE...",
// holding `message`, with no raw control or non-UTF-8 bytes.
void expect_contract(const HostileCase& c) {
  SCOPED_TRACE(c.name);
  const std::string path = write_bytes(c.name, c.bytes);
  const auto run = run_cli(c.command + " " + path + " --json");
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.out, "");
  ASSERT_FALSE(run.err.empty());
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
  EXPECT_EQ(run.err.rfind("skograph " + c.command + ": " + path, 0), 0u) << run.err;
  EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
  for (const char byte : run.err.substr(0, run.err.size() - 1))
    EXPECT_TRUE(byte >= 0x20 && byte < 0x7F) << "raw byte in: " << run.err;
}

TEST(HostileInputCli, DeepNestingIsRefusedNotAStackOverflow) {
  const int deep = 100000;
  expect_contract({"deep.dot",
                   "digraph g {\n" + repeated("subgraph s {\n", deep) + "a -> b\n" +
                       repeated("}\n", deep) + "}\n",
                   "graph", ":1002: malformed DOT: subgraphs nested deeper than 1000 levels"});
  expect_contract({"deep.urdf",
                   "<robot name=\"r\">\n<link name=\"a\"/>\n" + repeated("<x>", deep) +
                       repeated("</x>", deep) + "</robot>\n",
                   "dynamics", ":3: malformed XML: elements nested deeper than 100 levels"});
  std::string chain = "<mujoco><worldbody>\n";
  for (int k = 0; k < 200; ++k)
    chain +=
        "<body name=\"b" + std::to_string(k) + "\"><joint type=\"hinge\"/><geom size=\"0.1\"/>\n";
  chain += repeated("</body>", 200) + "</worldbody></mujoco>\n";
  expect_contract({"deep.xml", chain, "dynamics", ":99: malformed XML: elements nested deeper"});
  expect_contract({"deep.sdf", "<sdf version=\"1.9\">" + repeated("<model>", deep) + "\n",
                   "dynamics", ":1: malformed XML: elements nested deeper"});
  expect_contract({"deep.yaml", "links: " + repeated("[", deep) + repeated("]", deep) + "\n",
                   "dynamics", ":1: malformed YAML: nested deeper than"});
}

TEST(HostileInputCli, DeepStateJsonIsOneLine) {
  const int deep = 1000000;
  const std::string state = write_bytes(
      "deep_state.json", "{\"q\": " + repeated("[", deep) + repeated("]", deep) + "}\n");
  const auto run = run_cli("dynamics " + example_model("arm7.urdf") + " --state " + state);
  cli_test::expect_one_line_error(run, state + ": \"q\" must be an object");
}

TEST(HostileInputCli, BytesThatAreNotUtf8TextAreNamedEscaped) {
  // TinyXML once read past the end of this file (a character cut short).
  expect_contract({"cut.urdf", "<robot name=\"r\"><link name=\"a\"/><link name=\"\xc3", "dynamics",
                   ":1: invalid UTF-8 (byte \\xc3: a character cut short by the end of the file)"});
  expect_contract({"cut2.urdf", "<robot name=\"r\"><link name=\"a\">\xe2\x82", "dynamics",
                   ":1: invalid UTF-8 (byte \\xe2: a character cut short"});
  expect_contract({"nul.urdf", std::string("<robot name=\"r\">\n<link name=\"a\0b\"/></robot>", 42),
                   "dynamics", ":2: NUL byte: not a text file"});
  expect_contract(
      {"ff.dot", "digraph g {\n a\xff -> b }", "graph", ":2: invalid UTF-8 (byte \\xff)"});
  // Invalid UTF-8 in a name once made the JSON writer throw without naming the file.
  expect_contract(
      {"name.dot", "digraph g { \"a\xc3(\" -> c }", "graph", ":1: invalid UTF-8 (byte \\xc3)"});
  expect_contract({"name.yaml", "links:\n  - {name: \"b\xfe\", mass: 1}\n", "dynamics",
                   ":2: invalid UTF-8 (byte \\xfe)"});
  expect_contract({"escape.yaml",
                   "links:\n  - {name: \"x\\0y\", mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}\n"
                   "joints: []\n",
                   "dynamics", ":2: link name is not UTF-8 text"});
  expect_contract({"name.sdf", "<sdf version=\"1.9\"><model name=\"\xff\"/></sdf>", "dynamics",
                   ":1: invalid UTF-8 (byte \\xff)"});
  expect_contract(
      {"name.xml", "<mujoco model=\"\x80\"/>", "dynamics", ":1: invalid UTF-8 (byte \\x80)"});
  const std::string state = write_bytes("bad_state.json", "{\"q\": {\"\xc0\xaf\": 1}}");
  cli_test::expect_one_line_error(
      run_cli("dynamics " + example_model("arm7.urdf") + " --state " + state),
      state + ":1: invalid UTF-8 (byte \\xc0)");
}

TEST(HostileInputCli, CharacterReferencesThatDecodeToNonTextAreRefused) {
  // The bytes are UTF-8, but &#xD800; (a surrogate) decodes to bytes JSON cannot hold.
  expect_contract({"surrogate.xml",
                   "<mujoco><worldbody><body name=\"a&#xD800;\"><joint name=\"j\" type=\"hinge\"/>"
                   "<geom size=\"0.1\"/></body></worldbody></mujoco>",
                   "dynamics", ": link name 'a\\xed\\xa0\\x80' is not UTF-8 text"});
  expect_contract({"surrogate.sdf",
                   "<sdf version=\"1.9\"><model name=\"m\"><link name=\"a&#xD800;\"><inertial>"
                   "<mass>1</mass></inertial></link><joint name=\"j\" type=\"revolute\"><parent>"
                   "world</parent><child>a&#xD800;</child><axis><xyz>0 0 1</xyz></axis></joint>"
                   "</model></sdf>",
                   "dynamics", ": link name 'a\\xed\\xa0\\x80' is not UTF-8 text"});
}

TEST(HostileInputCli, NamesWithNewlinesStayOnOneLine) {
  expect_contract({"newline.dot", "digraph { \"a\nb\" -> \"a\nb\" }", "graph",
                   ":2: self-loop at node 'a\\nb'"});
  expect_contract({"newline.yaml", "links:\n  - {name: \"x\\ny\\t\\x01\", mass: 1}\njoints: []\n",
                   "dynamics", ":2: link 'x\\ny\\t\\x01' has a mass but no 'inertia'"});
  expect_contract({"newline_type.yaml",
                   "links:\n  - {name: a, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}\n"
                   "joints:\n  - {name: j, type: \"re\\nvolute\", parent: world, child: a}\n",
                   "dynamics", "unknown type 're\\nvolute'"});
  expect_contract({"newline_key.yaml", "links: []\n\"jo\\nints\": []\n", "dynamics",
                   ":2: unknown key 'jo\\nints'"});
  expect_contract(
      {"newline.urdf",
       "<robot name=\"r\">\n<link name=\"a\"/>\n<joint name=\"j&#10;k\" type=\"bad&#10;type\">"
       "<parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>\n",
       "dynamics", ":3: joint 'j\\nk' has unknown type 'bad\\ntype'"});
}

TEST(HostileInputCli, AWeldLoopBetweenTwoLinksLeavesNoIndependentCoordinateInItsAggregate) {
  // UBSan once saw Eigen index a null pointer here: the aggregate {b} has one dof and no
  // independent coordinate, so X_S has no columns. The weld makes b part of a: X = [1; 0] and
  // M_R = M(1, 1) of the tree.
  const std::string model = write_bytes("weld.yaml", R"(links:
  - {name: a, mass: 1, com: [0.1, 0, 0], inertia: {ixx: 0.001, iyy: 0.004, izz: 0.004}}
  - {name: b, mass: 1, com: [0.1, 0, 0], inertia: {ixx: 0.001, iyy: 0.004, izz: 0.004}}
joints:
  - {name: ja, type: revolute, parent: world, child: a, axis: [0, 0, 1]}
  - {name: jb, type: revolute, parent: a, child: b, origin: {xyz: [0.2, 0, 0]}, axis: [0, 0, 1]}
loops:
  - {name: w, type: weld, parent: a, child: b, origin: {xyz: [0.2, 0, 0]}}
)");
  const auto run = run_cli("dynamics " + model + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["independent"], nlohmann::json::array({"ja"}));
  EXPECT_EQ(report["X"], nlohmann::json::parse("[[1.0], [0.0]]"));
  EXPECT_DOUBLE_EQ(report["M_reduced"][0][0].get<double>(), report["M"][0][0].get<double>());
  // The two links as one rigid body about the axis: I_zz + m d^2 for each center of mass.
  EXPECT_NEAR(report["M_reduced"][0][0].get<double>(), 0.004 + 0.01 + 0.004 + 0.09, 1e-12);
}

TEST(HostileInputCli, UrdfSelfLoopsAndCyclesNeverReachUrdfdom) {
  // urdfdom's parseURDF never frees a link that is its own parent or a cycle of links (found by
  // fuzz_urdf with LeakSanitizer); under `make sanitize` this binary would report the leak. A self
  // loop is refused; a cycle is set aside (its joint becomes a loop), so here the error is the
  // link no joint attaches.
  const std::string links =
      "<robot name=\"r\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n<link name=\"c\"/>\n";
  expect_contract({"self_loop.urdf",
                   links + "<joint name=\"j\" type=\"fixed\"><parent link=\"b\"/>"
                           "<child link=\"b\"/></joint>\n</robot>\n",
                   "dynamics", ":5: joint 'j' connects link 'b' to itself"});
  expect_contract({"cycle.urdf",
                   links + "<joint name=\"j1\" type=\"fixed\"><parent link=\"a\"/>"
                           "<child link=\"b\"/></joint>\n<joint name=\"j2\" type=\"fixed\">"
                           "<parent link=\"b\"/><child link=\"a\"/></joint>\n</robot>\n",
                   "dynamics", ":4: link 'c' is connected to the world by no chain of joints"});
}

TEST(HostileInputCli, ALoopItsJointsCannotApproachIsOneLineNotACrash) {
  // A slider a carrying a pin b at its own origin, closed by a revolute loop one metre out on b:
  // the frames stay a metre apart whatever the joints do, so the closure Jacobian has rank 0 at
  // the zero state; Eigen's QR of the Newton step's empty dependent Jacobian read past its end.
  const std::string body =
      "<inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" "
      "iyz=\"0\" izz=\"1\"/></inertial>";
  expect_contract(
      {"unreachable_loop.urdf",
       "<robot name=\"r\">\n<link name=\"p\"/>\n<link name=\"a\">" + body +
           "</link>\n<link name=\"b\">" + body +
           "</link>\n<joint name=\"pin\" type=\"continuous\"><parent link=\"a\"/><child "
           "link=\"b\"/><axis xyz=\"0 0 1\"/></joint>\n<joint name=\"slide\" "
           "type=\"prismatic\"><parent link=\"p\"/><child link=\"a\"/><axis xyz=\"1 0 0\"/>"
           "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>\n<loop "
           "name=\"l\" type=\"revolute\"><predecessor link=\"b\"><origin xyz=\"1 0 0\"/>"
           "</predecessor><successor link=\"a\"/><axis xyz=\"0 0 1\"/></loop>\n</robot>\n",
       "dynamics", "loop 'l' cannot be closed from the given state"});
}

TEST(HostileInputCli, ALockedAggregateHasNoIndependentCoordinatesAndDoesNotMove) {
  // fuzz_mjcf tilted every hinge of the geared four-bar (axis 1 0 1): the loop then locks the
  // linkage, the aggregate has no independent coordinate, and UBSan saw Eigen offset a null
  // pointer copying the rows of its 0-column X_S. Locked, nothing moves: qdd = 0.
  const std::string model =
      write_bytes("locked.xml",
                  R"(<mujoco><default><joint type="hinge" axis="1 0 1"/></default><worldbody>
<body name="crank" euler="0 0 90"><joint name="crank_joint"/>
<inertial pos="0.05 0 0" mass="0.3" diaginertia="2e-5 2.6e-4 2.6e-4"/>
<body name="coupler" pos="0.1 0 0" axisangle="0 0 1 -60.00352820202503"><joint name="coupler_joint"/>
<inertial pos="0.2 0 0" mass="0.8" diaginertia="5e-5 1.07e-2 1.07e-2"/></body></body>
<body name="rocker" pos="0.35 0 0" xyaxes="-0.011925077982044579 0.9999288937295102 0 -0.9999288937295102 -0.011925077982044579 0">
<joint name="rocker_joint"/><inertial pos="0.15 0 0" mass="0.6" diaginertia="4e-5 4.5e-3 4.5e-3"/></body>
</worldbody><equality><connect body1="coupler" body2="rocker" anchor="0.4 0 0"/></equality></mujoco>
)");
  const auto run = run_cli("dynamics " + model + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["independent"], nlohmann::json::array());
  EXPECT_EQ(report["M_reduced"], nlohmann::json::array());
  for (const auto& value : report["qdd"]) EXPECT_EQ(value.get<double>(), 0.0);
}

TEST(HostileInputCli, YamlNullKeyNamesTheFileAndLine) {
  expect_contract({"null_key.yaml", "links:\n  - {name: a, mass: 1}\n? \n: 3\n", "dynamics",
                   ":4: a key in the mechanism must be a name"});
}

}  // namespace
