// `skograph analyze`'s index.html: one self-contained page (no network, no external
// scripts, styles or fonts) with the model summary, the report's tables, every picture (SVG
// inline with pan and zoom, PNG embedded as data URIs, DOT files linked) and a caption per
// picture in plain words.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace skograph::report {

// `report_text` is report.txt, `report` report.json, `pictures` (file name, bytes) the pictures
// written next to the page.
std::string html_report(const std::string& report_text, const nlohmann::ordered_json& report,
                        const std::vector<std::pair<std::string, std::string>>& pictures);

}  // namespace skograph::report
