// JSON text for people and scripts: objects one key per line, arrays of scalars (or of short
// arrays of scalars, e.g. edges) on one line. Same JSON value as nlohmann's dump.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace skograph::cli {

std::string format_json(const nlohmann::ordered_json& value);

}  // namespace skograph::cli
