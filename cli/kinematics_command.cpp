#include "kinematics_command.hpp"

#include <iomanip>
#include <limits>
#include <ostream>
#include <sstream>

#include "dynamics_report.hpp"
#include "skograph/cli/exit_status.hpp"
#include "skograph/model/kinematics.hpp"
#include "skograph/report/json_output.hpp"
#include "usage.hpp"
#include "warnings.hpp"

namespace skograph::cli {

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kKinematicsUsage =
    "usage: skograph kinematics MODEL [--state S.json] [--frames NAME,...|all] [--json] "
    "[--strict] [--independent JOINT,...] [--loops LOOPS.yaml] [--base LINK]";

Json rows_json(const Eigen::MatrixXd& m) {
  return report::matrix_json(m);
}

// Everything the command reports, computed once at the closed state.
struct FrameResult {
  std::string name;
  Eigen::Isometry3d pose;
  Vector6d velocity, acceleration;
};

struct JacobianResult {
  std::string name;
  Eigen::MatrixXd world, local, reduced;
};

std::string vector_text(const Eigen::VectorXd& v) {
  std::ostringstream text;
  text << std::setprecision(6) << "(";
  for (Eigen::Index i = 0; i < v.size(); ++i) text << (i ? ", " : "") << v(i);
  return text.str() + ")";
}

}  // namespace

int kinematics_command(const std::vector<std::string>& arguments, std::ostream& out,
                       std::ostream&) {
  const FrameCommandArguments args = parse_frame_command_arguments(arguments, kKinematicsUsage);
  const Model model = load_model(args.file, args.read);
  keep_warnings(model);
  const DofOrder& order = model.dof_order();
  const ModelState state = load_state(args.state_file, model);
  ModelData data(model);
  // The closed state, and the accelerations: the state's qdd, else the forward dynamics of tau.
  Eigen::VectorXd q, qd, qdd;
  const std::vector<std::string> frames = frame_names(model);
  std::vector<std::string> jacobian_frames = args.all_frames ? frames : args.frames;
  for (const std::string& name : jacobian_frames) model_frame(model, name);  // unknown: one line
  std::vector<FrameResult> frame_results;
  std::vector<JacobianResult> jacobians;
  Eigen::Vector3d com;
  Eigen::MatrixXd com_jacobian;
  double kinetic = 0.0, potential = 0.0;
  SingularityMeasures singularity;
  try {
    const ClosedState closed = close_state(model, data, state.q, state.qd);
    q = closed.q;
    qd = closed.qd;
    qdd =
        state.has_qdd ? state.qdd : forward_dynamics(model, data, q, qd, state.tau, state.gravity);
    // One assembly and one sweep for every frame.
    const std::vector<FrameMotion> motions =
        frame_motions(model, data, q, qd, qdd, frames, FrameAxes::kWorld);
    for (std::size_t f = 0; f < frames.size(); ++f)
      frame_results.push_back(
          {frames[f], motions[f].pose, motions[f].velocity, motions[f].acceleration});
    const std::vector<Eigen::MatrixXd> world =
        frame_jacobians(model, data, q, jacobian_frames, FrameAxes::kWorld);
    const std::vector<Eigen::MatrixXd> local =
        frame_jacobians(model, data, q, jacobian_frames, FrameAxes::kLocal);
    const Eigen::MatrixXd X =
        model.is_closed_chain() ? embedding_matrix(model, data, q) : Eigen::MatrixXd();
    for (std::size_t f = 0; f < jacobian_frames.size(); ++f)
      jacobians.push_back(
          {jacobian_frames[f], world[f], local[f],
           model.is_closed_chain() ? Eigen::MatrixXd(world[f] * X) : Eigen::MatrixXd()});
    com = center_of_mass(model, data, q);
    com_jacobian = center_of_mass_jacobian(model, data, q);
    kinetic = kinetic_energy(model, data, q, qd);
    potential = potential_energy(model, data, q, state.gravity);
    if (model.is_closed_chain())
      singularity = singularity_measures(model, data, q, jacobian_frames);
    close_state(model, data, q, qd);  // data.independent at the state
  } catch (const InputError&) {
    throw;
  } catch (const UsageError&) {  // a call the model does not take (flexible links): as worded
    throw;
  } catch (const Error& e) {  // cannot close, singular configuration, singular mass matrix
    throw closure_failure(args.file, args.state_file, e, model.mechanism());
  }
  add_state_messages(args.file, state_messages(model, data));
  const double mass = total_mass(model);

  if (args.json) {
    Json json;
    json["dofs"] = order.names();
    json["q"] = report::vector_json(q);
    Json frame_json = Json::object();
    for (const FrameResult& f : frame_results) {
      Json entry;
      entry["R"] = rows_json(f.pose.linear());
      entry["p"] = report::vector_json(f.pose.translation());
      entry["v"] = report::vector_json(f.velocity);
      entry["a"] = report::vector_json(f.acceleration);
      frame_json[f.name] = entry;
    }
    json["frames"] = frame_json;
    Json jacobian_json = Json::object();
    for (const JacobianResult& j : jacobians)
      jacobian_json[j.name] = Json{{"world", rows_json(j.world)}, {"local", rows_json(j.local)}};
    json["jacobians"] = jacobian_json;
    json["com"] = report::vector_json(com);
    json["com_jacobian"] = rows_json(com_jacobian);
    json["mass"] = mass;
    json["kinetic_energy"] = kinetic;
    json["potential_energy"] = potential;
    if (model.is_closed_chain()) {
      json["independent"] = data.independent;
      Json reduced = Json::object();
      for (const JacobianResult& j : jacobians) reduced[j.name] = rows_json(j.reduced);
      json["jacobians_reduced"] = reduced;
      Json conditions = Json::object();
      for (std::size_t i = 0; i < jacobians.size(); ++i)
        conditions[jacobians[i].name] = singularity.jacobian_condition[i];
      json["singularity"] = Json{{"constraint_condition", singularity.constraint_condition},
                                 {"jacobian_condition", conditions}};
    }
    out << report::format_json(json);
    return kExitOk;
  }

  std::ostringstream text;
  text << std::setprecision(6);
  text << "skograph kinematics " << args.file << ": " << frames.size() << " frames, "
       << model.dof_count() << " dofs, mass " << mass << " kg\n";
  text << "centre of mass " << vector_text(com) << " m; kinetic energy " << kinetic
       << " J, potential energy " << potential << " J\n";
  if (model.is_closed_chain()) {
    text << "independent:";
    for (const std::string& name : data.independent) text << " " << name;
    text << "\nconstraint condition per aggregate (type II singularity at infinity):";
    for (const double c : singularity.constraint_condition) text << " " << c;
    text << "\n";
  }
  text << "frames (p: origin in m; v, a: [angular; linear] in world axes about the origin; a "
          "classical)\n";
  for (const FrameResult& f : frame_results) {
    text << "  " << f.name << "\n    p " << vector_text(f.pose.translation()) << "  R rows";
    for (int r = 0; r < 3; ++r) text << " " << vector_text(f.pose.linear().row(r).transpose());
    text << "\n    v " << vector_text(f.velocity) << "\n    a " << vector_text(f.acceleration)
         << "\n";
  }
  for (std::size_t i = 0; i < jacobians.size(); ++i) {
    const JacobianResult& j = jacobians[i];
    text << "Jacobian of " << j.name << " (world axes about its origin; columns:";
    for (const std::string& name : order.names()) text << " " << name;
    text << ")\n";
    for (int r = 0; r < 6; ++r) text << "  " << vector_text(j.world.row(r).transpose()) << "\n";
    if (model.is_closed_chain()) {
      text << "  in the independent coordinates (condition " << singularity.jacobian_condition[i]
           << ", type I singularity at infinity):\n";
      for (int r = 0; r < 6; ++r) text << "  " << vector_text(j.reduced.row(r).transpose()) << "\n";
    }
  }
  out << text.str();
  return kExitOk;
}

}  // namespace skograph::cli
