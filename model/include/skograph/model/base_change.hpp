// A free-flying model with another base body (free-flying-base-invariance Appendix A;
// rigid/base_change.hpp builds the mechanism), and states carried between the two coordinate
// sets: the command line's --base LINK and the Python module's Model.with_base(link).
//
//   const Model file = load_model("space_arm.urdf");
//   const Model rebased = with_base(file, "link3");            // or load_model with options.base
//   const ModelState s = convert_state(file, rebased, {q, qd, qdd, tau});
//
// The coordinates of the joints the two models share keep their values (a reversed 1-dof joint
// included: same coordinate, axis turned); a floating joint that one model has and the other
// does not takes its child link's pose, body velocity and acceleration from the other model's
// kinematics (Lemma A.1: beta_k = T_{k,n} beta_n); generalized forces follow from the power
// they do, tau_k = T_{n,k}* tau_n (Eq. 44's congruence), so that both models give every link the
// same motion.
#pragma once

#include <Eigen/Core>
#include <string>

#include "skograph/model/model.hpp"
#include "skograph/model/state.hpp"

namespace skograph {

// The model of `model`'s file with `link` as the base body, or with the file's base when `link`
// names it; its file_model() is the file's model (`model` itself or the one it was made from),
// its notes say which joint replaced which and which were reversed. InputError naming the file:
// no such link, a fixed-base tree, a multi-dof joint between the link and the base.
Model with_base(const Model& model, const std::string& link);

// The state of `from` as `to` describes it, the two being the same links with different base
// bodies (with_base). Closed chains are assembled in `from` first (close_state).
// std::invalid_argument for vectors of the wrong size or two models that are not one mechanism.
// Empty qdd or tau: not converted (left empty); gravity and has_qdd carried as given.
ModelState convert_state(const Model& from, const Model& to, const ModelState& state);

}  // namespace skograph
