// STATE.json: values land at the dofs named after their joints, defaults, and every bad input.
#include "skograph/io/state_reader.hpp"

#include <gtest/gtest.h>

#include "skograph/io/yaml_reader.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using io_test::expect_input_error;

// Joints in order: weld (fixed, 0 dofs), free (6), elbow (1), ball (3), slide (1).
const std::string kModel = R"(links:
  - {name: body, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}
  - {name: base, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}
  - {name: upper, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}
  - {name: lower, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}
  - {name: hand, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}
joints:
  - {name: weld, type: fixed, parent: world, child: body}
  - {name: free, type: floating, parent: body, child: base}
  - {name: elbow, type: revolute, parent: base, child: upper}
  - {name: ball, type: spherical, parent: upper, child: lower}
  - {name: slide, type: prismatic, parent: lower, child: hand}
)";

TEST(StateReader, DofNamesFollowJointOrderAndMultiDofJointsAreNumbered) {
  const Mechanism m = parse_yaml(kModel, "m.yaml");
  EXPECT_EQ(dof_names(m),
            (std::vector<std::string>{"free:0", "free:1", "free:2", "free:3", "free:4", "free:5",
                                      "elbow", "ball:0", "ball:1", "ball:2", "slide"}));
}

TEST(StateReader, ValuesLandAtTheirDofsAndTheRestDefaultsToZero) {
  const Mechanism m = parse_yaml(kModel, "m.yaml");
  const MechanismState state = parse_state(R"({
    "gravity": [0, -9.8, 1],
    "q": {"elbow": 0.5, "ball": [0.1, 0.2, 0.3]},
    "qd": {"free": [1, 2, 3, 4, 5, 6]},
    "tau": {"slide": -2.5},
    "qdd": {}
  })",
                                           "s.json", m);
  EXPECT_EQ(state.gravity, Eigen::Vector3d(0, -9.8, 1));
  Eigen::VectorXd q = Eigen::VectorXd::Zero(11), qd = q, tau = q;
  q(6) = 0.5;
  q.segment<3>(7) << 0.1, 0.2, 0.3;
  qd.head<6>() << 1, 2, 3, 4, 5, 6;
  tau(10) = -2.5;
  EXPECT_EQ(state.q, q);
  EXPECT_EQ(state.qd, qd);
  EXPECT_EQ(state.tau, tau);
  EXPECT_EQ(state.qdd, Eigen::VectorXd::Zero(11));
  const MechanismState defaults = parse_state("{}", "s.json", m);
  EXPECT_EQ(defaults.gravity, Eigen::Vector3d(0, 0, -9.81));
  EXPECT_EQ(defaults.q.size(), 11);
}

TEST(StateReader, EachKindOfBadInputIsAnInputErrorNamingTheFile) {
  const Mechanism m = parse_yaml(kModel, "m.yaml");
  struct Case {
    std::string text;
    int line;
    std::string problem;
  };
  const Case cases[] = {
      {"{\n  \"q\": {\"elbow\": 0.5,\n}\n}", 3,
       "malformed JSON: unexpected '}' at line 3, column 1 (expected string literal)"},
      {"{\"q\": {\"elbow\": 1]}", 1,
       "malformed JSON: unexpected ']' at line 1, column 18 (expected '}')"},
      {"{\"q\": tru}", 1, "malformed JSON: invalid literal at line 1, column 10"},
      {"{\"q\": {\"knee\": 1}}", 0, "unknown joint 'knee'"},
      {"{\"qd\": {\"ball\": [1, 2]}}", 0, "array of 3 numbers"},
      {"{\"qd\": {\"ball\": 1}}", 0, "array of 3 numbers"},
      {"{\"tau\": {\"elbow\": [1]}}", 0, "must be a number"},
      {"{\"q\": {\"weld\": 1}}", 0, "fixed joint has no coordinates"},
      {"{\"gravity\": [0, 0]}", 0, "array of 3 numbers"},
      {"{\"gravity\": [0, 0, 1e999]}", 1, "number 1e999 out of range at line 1, column 20"},
      {"{\"qdd\": {\"slide\": \"fast\"}}", 0, "must be a number"},
      {"{\"velocity\": {}}", 0, "unknown key \"velocity\""},
      {"[1, 2]", 1, "must be a JSON object"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.problem);
    expect_input_error([&] { parse_state(c.text, "s.json", m); }, "s.json", c.line, c.problem);
    try {  // plain words: not the parser's internals
      parse_state(c.text, "s.json", m);
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).find("json.exception"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace skograph
