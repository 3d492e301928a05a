// JSON text for people and scripts: objects one key per line, arrays of scalars (or of short
// arrays of scalars, e.g. edges) on one line. Same JSON value as nlohmann's dump.
#pragma once

#include <Eigen/Core>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace skograph::report {

std::string format_json(const nlohmann::ordered_json& value);

// A vector as a JSON array, a matrix as an array of rows.
nlohmann::ordered_json vector_json(const Eigen::Ref<const Eigen::VectorXd>& v);
nlohmann::ordered_json matrix_json(const Eigen::Ref<const Eigen::MatrixXd>& m);

// A JSON string literal as nlohmann's dump writes it (quotes, \" \\ \b \f \n \r \t, other
// control bytes \u00XX, UTF-8 as is), bytes that are not well-formed UTF-8 replaced by U+FFFD
// (nlohmann's error_handler_t::replace) instead of throwing.
void append_json_string(std::string& out, std::string_view text);

// Appends `key: value` to `object` (made an object if null) when the caller knows the keys are
// distinct (node names): O(1), where ordered_json's operator[] searches the keys linearly and a
// 10^5-key object took O(n^2).
void append_distinct(nlohmann::ordered_json& object, std::string key, nlohmann::ordered_json value);

}  // namespace skograph::report
