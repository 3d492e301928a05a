// Bad usage of a sub-command and the parsing of option values, shared by the commands: each
// problem is one line (exit status 2, cli/commands.hpp).
#pragma once

#include <stdexcept>
#include <string>

namespace skograph::cli {

// Bad usage or input found by a command: reported as one line, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The value of an integer option, the whole argument, in [lower, upper]; otherwise UsageError
// "--size must be an integer from 16 to 8192 pixels, not 'x'" (`unit` after the range, if any).
int parse_integer(const std::string& option, const std::string& value, int lower, int upper,
                  const std::string& unit = "");

// The value of a number option (--t, --dt): a finite number, the whole argument; otherwise
// UsageError "--t must be a number of seconds, not 'x'".
double parse_number(const std::string& option, const std::string& value);

}  // namespace skograph::cli
