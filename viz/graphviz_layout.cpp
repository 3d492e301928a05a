#include "skograph/viz/graphviz_layout.hpp"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <memory>
#include <mutex>
#include <stdexcept>

namespace skograph::viz {

namespace {

std::mutex& graphviz_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Messages Graphviz reports while one call runs (guarded by graphviz_mutex()).
std::string& graphviz_messages() {
  static std::string messages;
  return messages;
}

int capture_graphviz_message(char* message) {
  graphviz_messages() += message;
  return 0;
}

struct GraphvizContextDeleter {
  void operator()(GVC_t* context) const { gvFreeContext(context); }
};
struct GraphDeleter {
  void operator()(Agraph_t* graph) const { agclose(graph); }
};
struct RenderDataDeleter {
  void operator()(char* data) const { gvFreeRenderData(data); }
};
using GraphvizContext = std::unique_ptr<GVC_t, GraphvizContextDeleter>;
using GraphvizGraph = std::unique_ptr<Agraph_t, GraphDeleter>;
using RenderData = std::unique_ptr<char, RenderDataDeleter>;

// The process's context (plugins are loaded once); call with graphviz_mutex() held.
GVC_t* graphviz_context() {
  static const GraphvizContext context(gvContext());
  if (!context) throw std::runtime_error("Graphviz: gvContext() failed");
  return context.get();
}

// The graph's layout, released (gvFreeLayout) before the graph itself is closed.
class Layout {
 public:
  Layout(GVC_t* context, Agraph_t* graph) : context_(context), graph_(graph) {
    if (gvLayout(context_, graph_, "dot") != 0)
      throw std::runtime_error(
          "Graphviz layout failed (is the plugin configuration present? run 'dot -c' as root)" +
          (graphviz_messages().empty() ? std::string() : ": " + graphviz_messages()));
  }
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;
  ~Layout() { gvFreeLayout(context_, graph_); }

 private:
  GVC_t* context_;
  Agraph_t* graph_;
};

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::string render_dot(const std::string& dot, ImageFormat format) {
  if (format == ImageFormat::kDot) return dot;
  const std::lock_guard<std::mutex> lock(graphviz_mutex());
  graphviz_messages().clear();
  const agusererrf previous_hook = agseterrf(capture_graphviz_message);
  struct RestoreHook {
    agusererrf hook;
    ~RestoreHook() { agseterrf(hook); }
  } restore{previous_hook};

  GVC_t* context = graphviz_context();
  const GraphvizGraph graph(agmemread(dot.c_str()));
  if (!graph)
    throw std::runtime_error("Graphviz could not read the DOT text: " +
                             trimmed(graphviz_messages()));
  const Layout layout(context, graph.get());
  char* data = nullptr;
  unsigned int length = 0;
  const int status = gvRenderData(context, graph.get(), image_format_name(format), &data, &length);
  const RenderData owned(data);
  if (status != 0 || data == nullptr)
    throw std::runtime_error(std::string("Graphviz could not render ") + image_format_name(format) +
                             ": " + trimmed(graphviz_messages()));
  return std::string(data, length);
}

}  // namespace skograph::viz
