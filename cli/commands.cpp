#include "skograph/cli/commands.hpp"

#include <csignal>
#include <exception>
#include <iostream>
#include <new>

#include "assemble_command.hpp"
#include "derivatives_command.hpp"
#include "export_command.hpp"
#include "graph_command.hpp"
#include "kinematics_command.hpp"
#include "linearize_command.hpp"
#include "model_commands.hpp"
#include "operators_command.hpp"
#include "simulate_command.hpp"
#include "skograph/config.hpp"
#include "skograph/graph/digraph.hpp"
#include "skograph/graph/output_file.hpp"
#include "usage.hpp"
#include "warnings.hpp"
#if SKOGRAPH_HAVE_VIZ
#include "analyze_command.hpp"
#include "render_command.hpp"
#include "view_command.hpp"
#endif

namespace skograph::cli {

namespace {
// Every command with its synopsis and what it does: `skograph help` prints them all,
// `skograph COMMAND --help` (or `skograph help COMMAND`) one.
struct CommandHelp {
  const char* name;
  const char* text;
};
constexpr CommandHelp kCommands[] = {
    {"graph",
     "  graph FILE [--json] [--adjacency A.mtx] [--loops LOOPS.yaml]\n"
     "                        analyze a digraph (.dot, .gv) or a model's standard digraph\n"},
    {"dynamics",
     "  dynamics MODEL [--state STATE.json] [--json] [--mass dense|sparse|none]\n"
     "           [--independent JOINT,...]\n"
     "                        M, bias, forward and inverse dynamics; closed chains in minimal\n"
     "                        coordinates (independent dofs, X, M_reduced, the aggregates'\n"
     "                        ranks, loop and coupling forces, actuator forces)\n"},
    {"derivatives",
     "  derivatives MODEL [--state STATE.json] [--json]\n"
     "                        derivatives of forward and inverse dynamics at the state:\n"
     "                        dqdd/dq, dqdd/dqd, dqdd/dtau = M^-1, dtau/dq, dtau/dqd, M (trees)\n"},
    {"linearize",
     "  linearize MODEL [--state STATE.json] [--inputs NAME,...] [--dt DT] [--hold | --rest]\n"
     "           [--json]\n"
     "                        A, B of x = (q, qd), eigenvalues, natural frequencies and modes;\n"
     "                        A_d, B_d by zero-order hold; --hold the forces that hold q at\n"
     "                        rest; --rest the nearest rest configuration and its stability\n"},
    {"simulate",
     "  simulate MODEL [--state STATE.json] --t T --dt H [--out TRAJ.csv [--loop-forces]]\n"
     "           [--json] [--method dopri5|rk4] [--rtol R] [--atol A] [--independent JOINT,...]\n"
     "                        integrate in minimal coordinates (Dormand-Prince 5(4) by default);\n"
     "                        energy drift and constraint residuals; --loop-forces adds the\n"
     "                        loop and coupling forces to the trajectory\n"},
    {"assemble",
     "  assemble MODEL [--state STATE.json] [--out CLOSED.json] [--json]\n"
     "           [--independent JOINT,...]\n"
     "                        a closed configuration of a closed chain from the state (or zero),\n"
     "                        independent coordinates kept where the loops allow; --out writes\n"
     "                        it as a state file every command accepts\n"},
    {"kinematics",
     "  kinematics MODEL [--state STATE.json] [--frames NAME,...|all] [--json]\n"
     "                        frame poses, velocities and accelerations, Jacobians of the named\n"
     "                        frames, centre of mass, energies; closed chains: Jacobians in the\n"
     "                        independent coordinates and singularity measures\n"},
    {"operators",
     "  operators MODEL [--state STATE.json] [--frames NAME,...|all] [--json]\n"
     "                        part II's operators at the state: log det M, M^-1 by the\n"
     "                        innovations factorization, the innovations factors and their\n"
     "                        inverse, D per joint, operational-space inertia and compliance of\n"
     "                        the named frames (closed chains: of M_R)\n"},
    {"bench",
     "  bench MODEL --algo id|fd|mass|fd-crba|ALGO [--batch N [--threads T] [--simd S]]\n"
     "        [--reps N] [--json]\n"
     "                        median time per call of a dynamics algorithm; trees also take\n"
     "                        id-derivatives, fd-derivatives (dynamics' derivatives) and\n"
     "                        the serial-chain paper's families (ALGO: id-sko id-composite\n"
     "                        mass-sko mass-direct mass-symmetry fd-direct fd-symmetry\n"
     "                        fd-sko-crba fd-innovations fd-cg fd-pcg fd-sko; free-flying\n"
     "                        trees: fd-base-invariant, fd-base-invariant-2 on two threads);\n"
     "                        --batch N [--threads T]: id, fd, mass (or a tree's\n"
     "                        id-derivatives, fd-derivatives) on N distinct states split\n"
     "                        over T threads of a kept pool, time per state; --simd\n"
     "                        auto|scalar|avx2|avx512: the lanes of a tree's batches (auto:\n"
     "                        the CPU's widest; scalar: state by state)\n"},
    {"export",
     "  export MODEL [--state S.json] --mass M.mtx [--factor L.mtx] [--perm P.txt]\n"
     "         [--kernel E.mtx] [--resolvent A.mtx] [--ordering canonical|root-first|amd|metis]\n"
     "         [--independent JOINT,...]\n"
     "                        sparse M, its CHOLMOD factor, E_A and A as Matrix Market files\n"},
#if SKOGRAPH_HAVE_VIZ
    {"render",
     "  render MODEL|FILE.dot --what digraph|spanning-tree|aggregated|segments|sparsity\n"
     "         [--matrix M|E|A|L|M_R] [--ordering canonical|root-first|amd] [--state S.json]\n"
     "         [--format svg|png|pdf|dot] [--size PIXELS] -o OUT\n"
     "                        draw one picture (format from OUT's extension by default)\n"},
    {"analyze",
     "  analyze MODEL|FILE.dot --out DIR [--size PIXELS] [--state S.json] [--max-diagram-nodes N]\n"
     "         [--independent JOINT,...]\n"
     "                        report (text, JSON) and every picture into DIR; closed chains:\n"
     "                        the constraint-embedded model and its M_R at the state; digraphs\n"
     "                        over N nodes (default 5000, 0: no limit) get DOT, not SVG, "
     "diagrams\n"},
    {"view",
     "  view MODEL [--state S.json] [--sweep DOF=LO:HI:N | --trajectory T.csv]\n"
     "       [--out view.html]\n"
     "                        the mechanism in 3D, one page that opens offline: links as\n"
     "                        their inertia boxes, joints, loops' frames in one colour each,\n"
     "                        the centre of mass; a trajectory (simulate --out) played back,\n"
     "                        or N closed configurations along one independent coordinate\n"},
    {"demo",
     "  demo [--out DIR] [--size PIXELS]\n"
     "                        analyze the built-in geared four-bar into DIR (default out/demo)\n"},
#endif
    {"help", "  help [COMMAND]        this text, or one command's\n"},
};
constexpr const char* kModelNote =
    "MODEL: .urdf, .yaml/.yml, .xml/.mjcf (MJCF), .sdf; every model command takes --strict\n"
    "(refuse physically inconsistent inertias and massless moving subtrees), --loops LOOPS.yaml\n"
    "(a loop file closing the model's loops: closed_loop, type, name_mot) and, for closed chains,\n"
    "--independent JOINT,... (the coordinates to keep independent: the actuated joints) and\n"
    "--conditioning-limit N (the largest condition number of the constraints on the dependent\n"
    "coordinates taken as well conditioned, default 1000) and, for free-flying systems, --base "
    "LINK\n"
    "(that link as the base body; state files stay in the file's coordinates and are converted,\n"
    "outputs name the new dofs)\n";
constexpr const char* kOneLineUsage =
    "usage: skograph <command> [options]; commands: graph dynamics derivatives linearize simulate "
    "assemble "
    "kinematics "
    "operators bench export"
#if SKOGRAPH_HAVE_VIZ
    " render analyze view demo"
#endif
    " (skograph help, skograph COMMAND --help)\n";

std::string full_usage() {
  std::string text =
      "skograph " SKOGRAPH_VERSION "\nusage: skograph <command> [options]\ncommands:\n";
  for (const CommandHelp& command : kCommands) text += command.text;
  return text + kModelNote + "options: --help (after a command: its usage), --version\n";
}

const CommandHelp* find_command(const std::string& name) {
  for (const CommandHelp& command : kCommands)
    if (name == command.name) return &command;
  return nullptr;
}

// `skograph COMMAND --help`, `skograph help COMMAND`: the command's usage on stdout.
int command_help(const CommandHelp& command, std::ostream& out) {
  out << "usage: skograph" << (command.text + 1);
  const std::string name = command.name;
  if (name != "graph" && name != "help") out << kModelNote;
  return kExitOk;
}

bool asks_for_help(const std::vector<std::string>& args) {
  for (const std::string& arg : args)
    if (arg == "--help" || arg == "-h") return true;
  return false;
}

// The input file of a command's arguments: the first one that is neither an option nor an
// option's value.
std::string input_file(const std::vector<std::string>& args) {
  static const char* const kValued[] = {"--state",     "--t",
                                        "--dt",        "--out",
                                        "--mass",      "--factor",
                                        "--perm",      "--kernel",
                                        "--resolvent", "--ordering",
                                        "--what",      "--matrix",
                                        "--format",    "--size",
                                        "-o",          "--reps",
                                        "--algo",      "--max-diagram-nodes",
                                        "--rtol",      "--atol",
                                        "--method",    "--independent",
                                        "--loops",     "--frames",
                                        "--solver",    "--adjacency",
                                        "--base",      "--conditioning-limit"};
  for (std::size_t i = 0; i < args.size(); ++i) {
    bool valued = false;
    for (const char* option : kValued) valued = valued || args[i] == option;
    if (valued) {
      ++i;
    } else if (args[i].empty() || args[i][0] != '-') {
      return args[i];
    }
  }
  return "";
}

// `message` naming the input file (prefixed unless it names it already).
std::string naming_input(const std::vector<std::string>& args, const std::string& message) {
  const std::string file = input_file(args);
  return file.empty() || message.find(file) != std::string::npos ? message : file + ": " + message;
}

}  // namespace

int report_failure(const std::string& command, const std::vector<std::string>& args,
                   std::ostream& err) {
  try {
    throw;
  } catch (const InputError& e) {  // names its file (and line) already
    print_line(err, command, e.what());
  } catch (const OutputError& e) {  // names the file it could not write
    print_line(err, command, e.what());
  } catch (const UsageError& e) {  // as the command words it
    print_line(err, command, e.what());
  } catch (const Error& e) {
    // What the model met at the state (cannot close, singular configuration, singular mass
    // matrix), or an ordering this CHOLMOD lacks: one line naming the input file.
    print_line(err, command, naming_input(args, e.what()));
  } catch (const std::bad_alloc&) {
    // Input sizes are capped below what the machine holds: running out of memory is a failure of
    // skograph's own, not of the input.
    print_line(err, command, naming_input(args, "internal failure: not enough memory"));
    return kExitInternalFailure;
  } catch (const std::exception& e) {
    // A broken invariant of skograph's own: still one line, never a crash.
    print_line(err, command, naming_input(args, std::string("internal failure: ") + e.what()));
    return kExitInternalFailure;
  } catch (...) {
    print_line(err, command, naming_input(args, "internal failure: an unknown exception"));
    return kExitInternalFailure;
  }
  return kExitBadInput;
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << kOneLineUsage;
    return kExitBadInput;
  }
  if (args[0] == "--version" || args[0] == "version") {
    out << "skograph " << SKOGRAPH_VERSION << "\n";
    return kExitOk;
  }
  if (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    if (args.size() > 1 && (args[1] == "--help" || args[1] == "-h"))
      return command_help(*find_command("help"), out);
    if (args.size() > 1 && find_command(args[1])) return command_help(*find_command(args[1]), out);
    if (args.size() > 1) {
      err << "skograph: unknown command '" << printable(args[1]) << "' (try 'skograph help')\n";
      return kExitBadInput;
    }
    out << full_usage();
    return kExitOk;
  }
  const std::string& command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (find_command(command) && asks_for_help(rest))
    return command_help(*find_command(command), out);
  int status = -1;
  discard_warnings();
  try {
    if (command == "graph") status = graph_command(rest, out, err);
    if (command == "dynamics") status = dynamics_command(rest, out);
    if (command == "derivatives") status = derivatives_command(rest, out);
    if (command == "linearize") status = linearize_command(rest, out);
    if (command == "simulate") status = simulate_command(rest, out, err);
    if (command == "assemble") status = assemble_command(rest, out, err);
    if (command == "kinematics") status = kinematics_command(rest, out, err);
    if (command == "operators") status = operators_command(rest, out, err);
    if (command == "bench") status = bench_command(rest, out);
    if (command == "export") status = export_command(rest, out, err);
#if SKOGRAPH_HAVE_VIZ
    if (command == "render") status = render_command(rest, out, err);
    if (command == "analyze") status = analyze_command(rest, out, err);
    if (command == "demo") status = demo_command(rest, out, err);
    if (command == "view") status = view_command(rest, out, err);
#else
    if (command == "render" || command == "analyze" || command == "demo" || command == "view")
      throw UsageError(
          "this skograph was built without its viz layer (Graphviz and cairo were "
          "not found, or SKOGRAPH_VIZ=OFF), so it draws no pictures");
#endif
  } catch (...) {
    discard_warnings();
    return report_failure(command, rest, err);
  }
  if (status < 0) {
    err << "skograph: unknown command '" << printable(command) << "' (try 'skograph help')\n";
    return kExitBadInput;
  }
  // Warnings only with a result: a failure is one line (the error) and nothing else.
  if (status == kExitOk)
    flush_warnings(command, err);
  else
    discard_warnings();
  return status;
}

int run(int argc, char** argv) {
  // A closed pipe is a write error (EPIPE, reported in one line), not a silent death.
  std::signal(SIGPIPE, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  return run(args, std::cout, std::cerr);
}

}  // namespace skograph::cli
