// `skograph assemble MODEL [--state S.json] [--out CLOSED.json] [--json] [--strict]
// [--independent JOINT,...]`: a closed configuration of a closed chain from the given (or zero)
// state through the library's assembly (model/model.hpp: close_state; rigid/closed_chain_model.hpp:
// assemble), written as a state file every command accepts.
#include "assemble_command.hpp"

#include <iomanip>
#include <ostream>
#include <sstream>

#include "dynamics_report.hpp"
#include "skograph/cli/exit_status.hpp"
#include "skograph/graph/output_file.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/report/json_output.hpp"
#include "usage.hpp"
#include "warnings.hpp"

namespace skograph::cli {

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kAssembleUsage =
    "usage: skograph assemble MODEL [--state S.json] [--out CLOSED.json] [--json] [--strict] "
    "[--independent JOINT,...] [--loops LOOPS.yaml] [--base LINK]";

struct AssembleArguments {
  std::string file, state_file, out;
  bool json = false;
  ReadOptions read;  // --strict, --independent, --loops
};

AssembleArguments parse_assemble_arguments(const std::vector<std::string>& args) {
  AssembleArguments parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (parse_model_option(args, i, parsed.read, kAssembleUsage)) continue;
    const std::string& arg = args[i];
    if (arg == "--state" || arg == "--out" || arg == "-o") {
      (arg == "--state" ? parsed.state_file : parsed.out) = require_value(args, i, kAssembleUsage);
    } else if (arg == "--json") {
      parsed.json = true;
    } else {
      positional_argument(arg, parsed.file, kAssembleUsage, "MODEL");
    }
  }
  require_argument(parsed.file, kAssembleUsage, "MODEL");
  if (parsed.json && is_standard_output(parsed.out))
    throw UsageError("--out - and --json would both write to standard output");
  return parsed;
}

}  // namespace

int assemble_command(const std::vector<std::string>& arguments, std::ostream& out,
                     std::ostream& err) {
  const AssembleArguments args = parse_assemble_arguments(arguments);
  const Model model = load_model(args.file, args.read);
  keep_warnings(model);
  const DofOrder& order = model.dof_order();
  const ModelState given = load_state(args.state_file, model);
  ModelData data(model);
  ClosedState closed;
  bool singular = false;
  try {
    closed = close_state(model, data, given.q, given.qd);
  } catch (const SingularConfigurationError& e) {
    // Closed, but where the constraints lose rank: the positions are the answer; qd stays.
    try {
      closed = {assemble_positions(model, data, given.q), given.qd};
    } catch (const Error& failure) {
      throw closure_failure(args.file, args.state_file, failure, model.mechanism());
    }
    singular = true;
    add_warnings(args.file, {std::string("the closed configuration is singular (") + e.what() +
                             "): qd is written as given, not projected onto the constraints"});
  } catch (const Error& e) {
    throw closure_failure(args.file, args.state_file, e, model.mechanism());
  }
  const double residual = closure_residual(model, data, closed.q);
  add_state_messages(args.file, state_messages(model, data));
  if (!model.is_closed_chain())
    add_note(args.file, "a tree: every state is closed, written as given");

  // The state file: the closed q, qd on the constraints, tau, qdd and gravity as given.
  ModelState state = given;
  state.q = closed.q;
  state.qd = closed.qd;
  const std::string file_text = model_state_text(model, state);
  if (!args.out.empty()) write_command_output(args.out, file_text, out);
  std::ostream& report = is_standard_output(args.out) ? err : out;
  if (args.json) {
    Json json;
    json["dofs"] = order.names();
    json["q"] = report::vector_json(closed.q);
    json["qd"] = report::vector_json(closed.qd);
    json["independent"] = data.independent;  // empty at a singular configuration
    json["singular"] = singular;
    json["residual"] = residual;
    Json moved = Json::object();
    for (const ModelData::Moved& m : data.moved) moved[m.dof] = m.by;
    json["moved"] = moved;
    report << report::format_json(json);
    return kExitOk;
  }
  std::ostringstream text;
  text << "skograph assemble " << args.file << ": closed, residual " << std::setprecision(2)
       << residual << " (tolerance " << kClosureTolerance << "); ";
  if (singular)
    text << "a singular configuration";
  else
    text << data.independent.size() << " of " << model.dof_count() << " dofs independent";
  text << (data.moved.empty() ? ", kept as given" : ", moved (see the warning)");
  if (!args.out.empty() && !is_standard_output(args.out)) text << "; wrote " << args.out;
  text << "\n" << std::setprecision(10);
  for (std::size_t i = 0; i < order.names().size(); ++i)
    text << "  " << std::left << std::setw(24) << order.names()[i] << std::right << std::setw(18)
         << closed.q(static_cast<Eigen::Index>(i)) << "\n";
  report << text.str();
  return kExitOk;
}

}  // namespace skograph::cli
