#include "skograph/viz/graphviz_layout.hpp"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

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

// Graphviz 2.43's default ID discipline makes a named object's ID the address of its interned
// name, and dot numbers the clusters in the order of their subgraphs' IDs (cgraph keeps subgraphs
// in a dictionary ordered by ID): the layout of a graph with clusters then depended on what the
// process had allocated before. These IDs are handed out in the order the names are first met
// (named objects even, anonymous ones odd, as the default does), so that a layout is a function
// of the DOT text. Graphviz 10.0.1 iterates subgraphs in creation order itself.
struct SequentialIds {
  Agraph_t* root = nullptr;
  std::unordered_map<std::string, IDTYPE> by_name;
  std::unordered_map<IDTYPE, char*> names;  // interned in the root graph, as the default does
  IDTYPE next_named = 2, next_anonymous = 1;
};
// The table of the graph being read (render_dot holds graphviz_mutex() while it is set).
SequentialIds* current_ids = nullptr;

void* ids_open(Agraph_t* graph, Agdisc_t*) {
  current_ids->root = graph;
  return current_ids;
}
long ids_map(void* state, int, char* name, IDTYPE* id, int create) {
  auto& ids = *static_cast<SequentialIds*>(state);
  if (name == nullptr) {
    *id = ids.next_anonymous;
    ids.next_anonymous += 2;
    return 1;
  }
  const auto found = ids.by_name.find(name);
  if (found != ids.by_name.end()) {
    *id = found->second;
    return 1;
  }
  if (create == 0) return 0;
  *id = ids.next_named;
  ids.next_named += 2;
  ids.by_name.emplace(name, *id);
  ids.names.emplace(*id, agstrdup(ids.root, name));
  return 1;
}
long ids_alloc(void*, int, IDTYPE) {
  return 0;
}  // objects are made by name only
void ids_free(void*, int, IDTYPE) {}  // the strings go with the graph's memory
char* ids_print(void* state, int, IDTYPE id) {
  const auto& names = static_cast<SequentialIds*>(state)->names;
  const auto found = names.find(id);
  return found == names.end() ? nullptr : found->second;
}
void ids_close(void*) {}
void ids_register(void*, int, void*) {}

Agiddisc_t sequential_id_discipline{ids_open,  ids_map,   ids_alloc,   ids_free,
                                    ids_print, ids_close, ids_register};

// The DOT text read with those IDs (agmemread's reading, from a memory stream).
Agraph_t* read_dot_text(const std::string& dot, SequentialIds& ids) {
  struct FileCloser {
    void operator()(FILE* file) const { std::fclose(file); }
  };
  const std::unique_ptr<FILE, FileCloser> stream(
      fmemopen(const_cast<char*>(dot.data()), dot.size(), "r"));
  if (!stream) return nullptr;
  Agdisc_t discipline{&AgMemDisc, &sequential_id_discipline, &AgIoDisc};
  current_ids = &ids;
  return agread(stream.get(), &discipline);
}

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
  SequentialIds ids;  // outlives the graph, which asks it for names until it is closed
  struct ForgetIds {
    ForgetIds() = default;
    ForgetIds(const ForgetIds&) = delete;
    ForgetIds& operator=(const ForgetIds&) = delete;
    ~ForgetIds() { current_ids = nullptr; }
  } forget;
  const GraphvizGraph graph(read_dot_text(dot, ids));
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
