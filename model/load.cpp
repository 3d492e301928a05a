// load_model (model/model.hpp): the file's mechanism, its model, then the base body the options
// name (model/base_change.hpp), each step once.
#include "skograph/model/base_change.hpp"
#include "skograph/model/model.hpp"

namespace skograph {

// The file's model first, with every option but the base body (states are read in its
// coordinates), then the base body: with_base builds it with the same BuildOptions.
Model load_model(const std::string& path, const ReadOptions& options) {
  ReadOptions as_declared = options;
  as_declared.base.clear();
  Model model = build_model(load_mechanism(path, as_declared), path, build_options(options));
  if (options.base.empty()) return model;
  return with_base(model, options.base);
}

}  // namespace skograph
