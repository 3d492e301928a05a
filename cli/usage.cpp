#include "cli/usage.hpp"

#include <cmath>
#include <exception>

namespace skograph::cli {

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

}  // namespace skograph::cli
