#include "usage.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <exception>
#include <ostream>
#include <sstream>

#include "skograph/graph/digraph.hpp"
#include "skograph/graph/output_file.hpp"

namespace skograph::cli {

void write_command_output(const std::string& path, const std::string& bytes, std::ostream& out) {
  write_command_outputs({{path, bytes}}, out);
}

void write_command_outputs(const std::vector<std::pair<std::string, std::string>>& files,
                           std::ostream& out) {
  std::vector<std::pair<std::string, std::string>> to_files;
  const std::string* to_out = nullptr;
  for (const auto& file : files) {
    if (is_standard_output(file.first))
      to_out = &file.second;
    else
      to_files.push_back(file);
  }
  write_output_files(to_files);
  if (to_out != nullptr) write_standard_output(out, *to_out, "-");
}

void write_standard_output(std::ostream& out, std::string_view bytes, const std::string& name) {
  errno = 0;
  if (!(out << bytes << std::flush))
    throw OutputError(name, errno != 0 ? std::strerror(errno) : "standard output failed");
}

void print_line(std::ostream& err, const std::string& command, const std::string& text) {
  err << "skograph " << printable(command) << ": " << printable(text) << "\n";
}

const std::string& require_value(const std::vector<std::string>& args, std::size_t& i,
                                 const std::string& usage) {
  if (i + 1 == args.size()) throw UsageError(args[i] + " needs a value (" + usage + ")");
  return args[++i];
}

void positional_argument(const std::string& arg, std::string& file, const std::string& usage,
                         const char* what) {
  if (!arg.empty() && arg[0] == '-')
    throw UsageError("unknown option '" + arg + "' (" + usage + ")");
  if (!file.empty())
    throw UsageError(std::string("more than one ") + what + " given ('" + file + "', '" + arg +
                     "')");
  file = arg;
}

void require_argument(const std::string& file, const std::string& usage, const char* what) {
  if (file.empty()) throw UsageError(std::string("no ") + what + " given (" + usage + ")");
}

int parse_integer(const std::string& option, const std::string& value, int lower, int upper,
                  const std::string& unit) {
  size_t used = 0;
  long parsed = 0;
  try {
    parsed = std::stol(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (value.empty() || used != value.size() || parsed < lower || parsed > upper)
    throw UsageError(option + " must be an integer from " + std::to_string(lower) + " to " +
                     std::to_string(upper) + (unit.empty() ? "" : " " + unit) + ", not '" + value +
                     "'");
  return static_cast<int>(parsed);
}

double parse_number(const std::string& option, const std::string& value) {
  size_t used = 0;
  double parsed = 0.0;
  try {
    parsed = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (value.empty() || used != value.size() || !std::isfinite(parsed))
    throw UsageError(option + " must be a number of seconds, not '" + value + "'");
  return parsed;
}

std::vector<std::string> parse_name_list(const std::string& option, const std::string& value) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = value.find(',', start);
    names.push_back(
        value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (names.back().empty())
      throw UsageError(option + " needs joint names separated by commas, not '" + value + "'");
    if (comma == std::string::npos) return names;
    start = comma + 1;
  }
}

bool parse_model_option(const std::vector<std::string>& args, std::size_t& i, ReadOptions& options,
                        const std::string& usage) {
  const std::string& arg = args[i];
  if (arg == "--strict") {
    options.strict = true;
    return true;
  }
  if (arg == "--conditioning-limit") {
    if (i + 1 >= args.size())
      throw UsageError("--conditioning-limit needs a number (" + usage + ")");
    const std::string& value = args[++i];
    std::size_t used = 0;
    double parsed = 0.0;
    try {
      parsed = std::stod(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (value.empty() || used != value.size() || !std::isfinite(parsed) || parsed < 1.0)
      throw UsageError("--conditioning-limit must be a number of at least 1, not '" + value + "'");
    options.conditioning_limit = parsed;
    return true;
  }
  if (arg != "--independent" && arg != "--loops" && arg != "--base") return false;
  if (i + 1 >= args.size())
    throw UsageError(arg +
                     (arg == "--loops"  ? " needs a file ("
                      : arg == "--base" ? " needs a link name ("
                                        : " needs joint names (") +
                     usage + ")");
  if (arg == "--loops")
    options.loops_file = args[++i];
  else if (arg == "--base") {
    if (!options.base.empty()) throw UsageError("--base given twice (" + usage + ")");
    options.base = args[++i];
    if (options.base.empty()) throw UsageError("--base needs a link name (" + usage + ")");
  } else
    options.independent = parse_name_list(arg, args[++i]);
  return true;
}

FrameCommandArguments parse_frame_command_arguments(const std::vector<std::string>& args,
                                                    const std::string& usage) {
  FrameCommandArguments parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (parse_model_option(args, i, parsed.read, usage)) continue;
    const std::string& arg = args[i];
    if (arg == "--state" || arg == "--frames") {
      const std::string& value = require_value(args, i, usage);
      if (arg == "--state") {
        parsed.state_file = value;
      } else if (value == "all") {
        parsed.all_frames = true;
      } else {
        std::stringstream list(value);
        for (std::string name; std::getline(list, name, ',');)
          if (!name.empty()) parsed.frames.push_back(name);
        if (parsed.frames.empty())
          throw UsageError("--frames needs frame names or 'all' (" + usage + ")");
      }
    } else if (arg == "--json") {
      parsed.json = true;
    } else {
      positional_argument(arg, parsed.file, usage, "MODEL");
    }
  }
  require_argument(parsed.file, usage, "MODEL");
  return parsed;
}

}  // namespace skograph::cli
