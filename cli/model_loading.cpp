#include "cli/model_loading.hpp"

#include <cmath>
#include <ostream>

#include "io/mechanism_file.hpp"

namespace skograph::cli {

Mechanism load_mechanism(const std::string& file) {
  return without_massless_fixed_links(read_mechanism_file(file));
}

bool is_closed_chain(const Mechanism& mechanism) {
  return !mechanism.loops.empty() || !mechanism.couplings.empty();
}

std::string naming_file(const std::string& file, const std::string& message) {
  return message.rfind(file, 0) == 0 ? message : file + ": " + message;
}

ClosedChainModel load_closed_chain_model(const std::string& file, Mechanism mechanism) {
  try {
    return ClosedChainModel(std::move(mechanism));
  } catch (const std::invalid_argument& e) {
    throw UsageError(naming_file(file, e.what()));
  } catch (const ClosureError& e) {
    throw UsageError(naming_file(file, e.what()));
  }
}

std::string aggregate_links(const ClosedChainModel& model, int s) {
  std::string names;
  for (int node : model.aggregate_nodes(s))
    names += (names.empty() ? "" : ", ") +
             model.mechanism().links[static_cast<size_t>(model.tree().link_of_node(node))].name;
  return names;
}

void note_whole_mechanism(const char* command, const std::string& file,
                          const ClosedChainModel& model, std::ostream& err) {
  if (!model.swallows_whole_mechanism()) return;
  err << "skograph " << command << ": note: " << file << ": one aggregate holds all "
      << model.tree().joint_count()
      << " joints of the mechanism, so the embedded model is a single node (results are exact; "
         "the recursions gain nothing from the tree structure)\n";
}

nlohmann::ordered_json vector_json(const Eigen::Ref<const Eigen::VectorXd>& v) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) list.push_back(v(i));
  return list;
}

nlohmann::ordered_json matrix_json(const Eigen::Ref<const Eigen::MatrixXd>& m) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(m(r, c));
    rows.push_back(row);
  }
  return rows;
}

Eigen::VectorXd embedding_rate(const ClosedChainModel& model, const ClosedChainData& data) {
  Eigen::VectorXd rate = Eigen::VectorXd::Zero(model.dof_count());
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const std::vector<int>& dofs = model.aggregate_dofs(s);
    const Eigen::VectorXd& local = data.embedding_rate[static_cast<size_t>(s)];
    for (size_t i = 0; i < dofs.size(); ++i) rate(dofs[i]) = local(static_cast<Eigen::Index>(i));
  }
  return rate;
}

}  // namespace skograph::cli
