// What the two sources of modal data share (the modal data file, io/modal_file.cpp; a link's
// `flexible:` section in the YAML format, io/flexible_section.cpp): the fields as read, each with
// its line, turned into a checked ModalBody. Not installed.
#pragma once

#include <optional>
#include <string>

#include "mechanism_checks.hpp"
#include "skograph/rigid/modal_body.hpp"

namespace skograph::io {

template <typename Value>
struct Located {
  Value value;
  SourceLocation where;
};

struct ModalFields {
  SourceLocation where;  // the start of the data: where a problem of the whole is reported
  std::optional<Located<Eigen::MatrixXd>> modal_mass, modal_stiffness, modal_damping, coupling;
  std::optional<Located<Eigen::VectorXd>> frequencies_hz, damping_ratios;
  std::vector<ModalNode> nodes;
};

// The body of the fields: modal mass by default the identity, stiffness from the frequencies and
// damping from the ratios of mass-normalized modes (K = diag(omega^2 m), D = diag(2 zeta omega m)),
// every number checked (rigid/modal_body.hpp: modal_body_problem). InputError at the field's line.
ModalBody assemble_modal_body(const ModalFields& fields);

}  // namespace skograph::io
