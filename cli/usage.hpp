// Bad usage of a sub-command and the parsing of option values, shared by the commands: each
// problem is one line (exit status 2, cli/commands.hpp).
#pragma once

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "skograph/graph/error.hpp"
#include "skograph/io/read_options.hpp"

namespace skograph::cli {

// Bad usage of a command (an unknown option, a missing value) or a problem a command words itself
// (naming the model and the state): skograph::UsageError (graph/error.hpp), printed as it is, one
// line, exit status 2.
using skograph::UsageError;

// One line on stderr: "skograph COMMAND: TEXT", TEXT escaped (printable, graph/digraph.hpp) so
// that a name holding a newline, a NUL byte or invalid UTF-8 cannot break the line.
void print_line(std::ostream& err, const std::string& command, const std::string& text);

// Writes bytes to the command's standard output stream; OutputError(name, reason) when it fails
// (a closed pipe: "Broken pipe").
void write_standard_output(std::ostream& out, std::string_view bytes, const std::string& name);

// Writes a command's output file: "-" (or /dev/stdout) to `out` (the command's standard output),
// any other path through graph/output_file.hpp (no partial file; devices and FIFOs in place).
// OutputError on failure.
void write_command_output(const std::string& path, const std::string& bytes, std::ostream& out);
void write_command_outputs(const std::vector<std::pair<std::string, std::string>>& files,
                           std::ostream& out);

// The value after the option at args[i] (i moves to it): UsageError "OPTION needs a value
// (USAGE)" when it is missing.
const std::string& require_value(const std::vector<std::string>& args, std::size_t& i,
                                 const std::string& usage);
// An argument no option took: UsageError "unknown option" for one that starts with '-', else the
// command's input `file` (`what`: MODEL, FILE, input), UsageError for a second one.
void positional_argument(const std::string& arg, std::string& file, const std::string& usage,
                         const char* what);
// UsageError "no WHAT given (USAGE)" when `file` is empty.
void require_argument(const std::string& file, const std::string& usage, const char* what);

// The value of an integer option, the whole argument, in [lower, upper]; otherwise UsageError
// "--size must be an integer from 16 to 8192 pixels, not 'x'" (`unit` after the range, if any).
int parse_integer(const std::string& option, const std::string& value, int lower, int upper,
                  const std::string& unit = "");

// The names of a list option (--independent a,b,c): comma-separated, none empty; otherwise
// UsageError "--independent needs joint names separated by commas, not 'a,,b'".
std::vector<std::string> parse_name_list(const std::string& option, const std::string& value);

// The options every model command takes, into `options` (io/read_options.hpp): --strict,
// --independent JOINT,..., --loops FILE, --base LINK, --conditioning-limit N. True when args[i] is
// one of them (i then at its value); UsageError "--loops needs a file (USAGE)" for a missing value.
bool parse_model_option(const std::vector<std::string>& args, std::size_t& i, ReadOptions& options,
                        const std::string& usage);

// The arguments of the frame commands (kinematics, operators): MODEL [--state S.json]
// [--frames NAME,...|all] [--json] and the model options; UsageError (naming `usage`) otherwise.
struct FrameCommandArguments {
  std::string file, state_file;
  std::vector<std::string> frames;  // the frames --frames names
  bool all_frames = false, json = false;
  ReadOptions read;
};
FrameCommandArguments parse_frame_command_arguments(const std::vector<std::string>& args,
                                                    const std::string& usage);

// The value of a number option (--t, --dt): a finite number, the whole argument; otherwise
// UsageError "--t must be a number of seconds, not 'x'".
double parse_number(const std::string& option, const std::string& value);

}  // namespace skograph::cli
