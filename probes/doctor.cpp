#include "probes/doctor.h"

#include <dlfcn.h>
#include <grp.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include "core/isolate.h"
#include "core/json.h"

namespace gauntlet::probes {

namespace fs = std::filesystem;
using core::Json;
using core::Row;
using core::RowStatus;

namespace {

constexpr const char* kDefaultOpenclVendors = "/etc/OpenCL/vendors";
const char* const kVulkanIcdFolders[] = {"/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d",
                                         "/usr/share/vulkan/icd.d"};

std::optional<std::string> driver_variable(const std::string& name) {
  for (const auto& [key, value] : core::driver_environment()) {
    if (key == name) return value;
  }
  return std::nullopt;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t next = text.find(separator, pos);
    std::string part = text.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    if (!part.empty()) parts.push_back(part);
    if (next == std::string::npos) break;
    pos = next + 1;
  }
  return parts;
}

std::string trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

Row fail_row(const std::string& id, std::string reason, std::string fix) {
  Row row = core::make_row(id, "", RowStatus::fail, std::move(reason));
  row.metrics["fix"] = std::move(fix);
  return row;
}

// Files in `folder` whose names end with `suffix`, sorted so that rows come in a stable order.
std::vector<fs::path> files_with_suffix(const fs::path& folder, const std::string& suffix) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The outcome of dlopen in a child process.
struct LoadResult {
  bool loaded = false;
  std::string error;     // dlerror() when not loaded
  std::string resolved;  // the file the dynamic linker picked
  std::vector<std::string> symbols_found;
  std::optional<Row> failure;  // the child crashed or hung while loading
};

// A driver library runs its constructors when loaded, and a broken one can crash or hang there
// (and drag LLVM and other state into the process). Loading it in a forked child keeps this
// process clean for the children that later touch devices, and turns a crash into a row.
LoadResult load_in_child(const std::string& row_id, const std::string& library,
                         const std::vector<std::string>& symbols) {
  core::IsolationLimits limits;
  limits.timeout = std::chrono::milliseconds(30'000);
  core::IsolatedRun run = core::run_isolated(row_id, "", limits, [&]() -> Json {
    void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = ::dlerror();
      return Json{{"loaded", false}, {"error", error ? error : "dlopen failed"}};
    }
    Json out{{"loaded", true}, {"symbols", Json::array()}};
    link_map* map = nullptr;
    if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name) {
      out["resolved"] = map->l_name;
    }
    for (const auto& symbol : symbols) {
      if (::dlsym(handle, symbol.c_str()) != nullptr) out["symbols"].push_back(symbol);
    }
    return out;  // no dlclose: the child exits without running driver destructors
  });
  LoadResult result;
  if (!run.completed) {
    result.failure = run.failure;
    return result;
  }
  result.loaded = run.payload.value("loaded", false);
  result.error = run.payload.value("error", "");
  result.resolved = run.payload.value("resolved", "");
  for (const auto& symbol : run.payload.value("symbols", Json::array())) {
    result.symbols_found.push_back(symbol.get<std::string>());
  }
  return result;
}

// Loads `library` for check `id`, and yields pass or fail with the reason and fix filled.
// `named_in` is the file that names the library (empty for the loaders themselves);
// `any_of` lists entry points of which at least one must be exported.
Row library_row(const std::string& id, const std::string& library, const std::string& named_in,
                const std::vector<std::string>& any_of, const std::string& missing_fix) {
  LoadResult load = load_in_child(id, library, any_of);
  std::string subject = named_in.empty() ? "the library '" + library + "'"
                                         : "the library '" + library + "' named in " + named_in;
  if (load.failure) {
    Row row = *load.failure;
    row.reason = "loading " + subject + " did not finish: " + row.reason;
    row.metrics["library"] = library;
    row.metrics["fix"] = "the driver library breaks while loading; reinstall or remove it" +
                         (named_in.empty() ? std::string() : " (and " + named_in + ")");
    if (!named_in.empty()) row.metrics["file"] = named_in;
    return row;
  }
  Row row;
  if (!load.loaded) {
    row = fail_row(id, subject + " cannot be loaded: " + load.error, missing_fix);
  } else if (!any_of.empty() && load.symbols_found.empty()) {
    std::string names;
    for (const auto& symbol : any_of) names += (names.empty() ? "" : " or ") + symbol;
    row = fail_row(id, subject + " loads but exports no " + names + ", so the loader cannot use it",
                   "the file is not a driver for this API or is a wrong build; reinstall it");
  } else {
    row = core::make_row(id, "", RowStatus::pass,
                         "loads" + (load.resolved.empty() ? "" : " from " + load.resolved));
    row.metrics["symbols"] = load.symbols_found;
  }
  row.metrics["library"] = library;
  if (!load.resolved.empty()) row.metrics["resolved"] = load.resolved;
  if (!named_in.empty()) row.metrics["file"] = named_in;
  return row;
}

// --- OpenCL ---------------------------------------------------------------------------------

const std::vector<std::string> kOpenclIcdEntry = {"clGetExtensionFunctionAddress",
                                                  "clIcdGetPlatformIDsKHR"};

Row opencl_vendor_file_row(const fs::path& file) {
  const std::string id = "doctor.opencl.vendor:" + file.string();
  auto text = core::read_text_file(file);
  if (!text) {
    return fail_row(
        id, "cannot read OpenCL vendor file " + file.string() + ": " + text.error().describe(),
        "fix the file's permissions or remove " + file.string());
  }
  std::string library = trim(*text);
  if (library.empty()) {
    return fail_row(id,
                    "OpenCL vendor file " + file.string() +
                        " is empty (it must name the "
                        "driver library, e.g. libpocl.so.2)",
                    "write the library name into " + file.string() + " or remove it");
  }
  return library_row(id, library, file.string(), kOpenclIcdEntry,
                     "install the package that provides " + library + ", or remove " +
                         file.string() + " if that driver is gone");
}

void opencl_checks(std::vector<Row>& rows) {
  rows.push_back(library_row("doctor.opencl.icd_loader", "libOpenCL.so.1", "", {"clGetPlatformIDs"},
                             "install the OpenCL ICD loader: apt install ocl-icd-libopencl1"));

  std::vector<fs::path> vendor_files;
  std::vector<std::string> libraries;  // named directly, not through a vendor file
  std::string where = kDefaultOpenclVendors;
  std::string source = "default";
  Row summary = core::make_row("doctor.opencl.vendors", "", RowStatus::pass);
  if (auto vendors = driver_variable("OCL_ICD_VENDORS"); vendors && !vendors->empty()) {
    source = "OCL_ICD_VENDORS";
    where = *vendors;
    std::error_code ec;
    if (fs::is_directory(*vendors, ec)) {
      vendor_files = files_with_suffix(*vendors, ".icd");
    } else if (vendors->size() > 4 && vendors->ends_with(".icd")) {
      vendor_files.push_back(*vendors);  // a missing file fails in its own row, by name
    } else {
      libraries.push_back(*vendors);  // the loader takes any other value as a library
    }
  } else {
    vendor_files = files_with_suffix(kDefaultOpenclVendors, ".icd");
  }
  if (auto names = driver_variable("OCL_ICD_FILENAMES"); names && !names->empty()) {
    for (const auto& library : split(*names, ':')) libraries.push_back(library);
  }
  summary.metrics["source"] = source;
  summary.metrics["where"] = where;
  summary.metrics["count"] = vendor_files.size() + libraries.size();
  if (vendor_files.empty() && libraries.empty()) {
    summary.status = RowStatus::fail;
    summary.reason = "no OpenCL driver is registered: no .icd files in " + where +
                     (source == "default" ? "" : " (from " + source + ")");
    summary.metrics["fix"] =
        "install an OpenCL driver: pocl-opencl-icd (CPU), mesa-opencl-icd, "
        "intel-opencl-icd or the GPU vendor's ICD package";
  } else {
    summary.reason = std::to_string(vendor_files.size() + libraries.size()) +
                     " OpenCL driver(s) registered in " + where;
  }
  rows.push_back(summary);
  for (const auto& file : vendor_files) rows.push_back(opencl_vendor_file_row(file));
  for (const auto& library : libraries) {
    rows.push_back(library_row("doctor.opencl.vendor:" + library, library, "", kOpenclIcdEntry,
                               "install the package that provides " + library +
                                   " or correct OCL_ICD_VENDORS / OCL_ICD_FILENAMES"));
  }
}

// --- Vulkan ---------------------------------------------------------------------------------

Row vulkan_manifest_row(const fs::path& manifest) {
  const std::string id = "doctor.vulkan.icd:" + manifest.string();
  const std::string remove = "fix or remove " + manifest.string();
  auto text = core::read_text_file(manifest);
  if (!text) {
    return fail_row(
        id, "cannot read Vulkan ICD manifest " + manifest.string() + ": " + text.error().describe(),
        remove + ", or correct VK_DRIVER_FILES / VK_ICD_FILENAMES");
  }
  auto json = core::parse_json(*text, "Vulkan ICD manifest " + manifest.string());
  if (!json) return fail_row(id, json.error().describe(), remove + " (it must be JSON)");
  const Json& doc = *json;
  if (!doc.is_object() || !doc.contains("ICD") || !doc["ICD"].is_object()) {
    return fail_row(id, "Vulkan ICD manifest " + manifest.string() + " has no \"ICD\" object",
                    remove);
  }
  const Json& icd = doc["ICD"];
  if (!icd.contains("library_path") || !icd["library_path"].is_string() ||
      icd["library_path"].get<std::string>().empty()) {
    return fail_row(
        id, "Vulkan ICD manifest " + manifest.string() + " has no ICD.library_path string", remove);
  }
  std::string library = icd["library_path"].get<std::string>();
  // As the loader reads it: a relative path with a folder is relative to the manifest.
  if (library.find('/') != std::string::npos && fs::path(library).is_relative()) {
    library = (manifest.parent_path() / library).lexically_normal().string();
  }
  Row row = library_row(id, library, manifest.string(),
                        {"vk_icdGetInstanceProcAddr", "vkGetInstanceProcAddr"},
                        "install the driver package that provides " + library + ", or remove " +
                            manifest.string() + " if that driver is gone");
  if (icd.contains("api_version") && icd["api_version"].is_string()) {
    row.metrics["api_version"] = icd["api_version"];
  }
  return row;
}

void vulkan_checks(std::vector<Row>& rows) {
  rows.push_back(library_row("doctor.vulkan.loader", "libvulkan.so.1", "",
                             {"vkGetInstanceProcAddr"},
                             "install the Vulkan loader: apt install libvulkan1"));

  std::vector<std::string> entries;
  std::string source = "default";
  for (const char* variable : {"VK_DRIVER_FILES", "VK_ICD_FILENAMES"}) {
    if (auto value = driver_variable(variable); value && !value->empty()) {
      entries = split(*value, ':');
      source = variable;
      break;
    }
  }
  if (source == "default") {
    for (const char* folder : kVulkanIcdFolders) entries.push_back(folder);
  }
  if (auto added = driver_variable("VK_ADD_DRIVER_FILES"); added && !added->empty()) {
    for (const auto& entry : split(*added, ':')) entries.push_back(entry);
  }
  std::vector<fs::path> manifests;
  for (const auto& entry : entries) {
    std::error_code ec;
    if (fs::is_directory(entry, ec)) {
      for (auto& file : files_with_suffix(entry, ".json")) manifests.push_back(file);
    } else if (source != "default") {
      manifests.push_back(entry);  // named explicitly: a missing file fails in its own row
    }
  }
  std::string where;
  for (const auto& entry : entries) where += (where.empty() ? "" : ":") + entry;
  Row summary = core::make_row("doctor.vulkan.icds", "", RowStatus::pass);
  summary.metrics["source"] = source;
  summary.metrics["where"] = where;
  summary.metrics["count"] = manifests.size();
  if (manifests.empty()) {
    summary.status = RowStatus::fail;
    summary.reason = "no Vulkan ICD manifest found in " + where +
                     (source == "default" ? "" : " (from " + source + ")");
    summary.metrics["fix"] =
        "install a Vulkan driver: mesa-vulkan-drivers (llvmpipe on the CPU, "
        "radv, anv) or the GPU vendor's driver";
  } else {
    summary.reason = std::to_string(manifests.size()) + " Vulkan ICD manifest(s) in " + where;
  }
  rows.push_back(summary);
  for (const auto& manifest : manifests) rows.push_back(vulkan_manifest_row(manifest));
}

// --- DRM ------------------------------------------------------------------------------------

std::string group_of(gid_t gid) {
  group entry{};
  group* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getgrgid_r(gid, &entry, buffer.data(), buffer.size(), &found) == 0 && found) {
    return found->gr_name;
  }
  return std::to_string(gid);
}

void drm_checks(const core::Options& options, std::vector<Row>& rows) {
  fs::path folder = fs::path(options.dev_root) / "dri";
  std::vector<fs::path> nodes;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind("renderD", 0) == 0) nodes.push_back(it->path());
  }
  std::sort(nodes.begin(), nodes.end());
  Row summary = core::make_row("doctor.drm.render_nodes", "", RowStatus::pass);
  summary.metrics["folder"] = folder.string();
  summary.metrics["count"] = nodes.size();
  if (nodes.empty()) {
    summary.status = RowStatus::skipped;
    summary.reason = "no DRM render nodes under " + folder.string() +
                     ": no GPU kernel driver here (or the container was started without "
                     "--device /dev/dri); OpenCL and Vulkan on the CPU still work";
    rows.push_back(summary);
    return;
  }
  int open_ok = 0;
  std::vector<Row> node_rows;
  for (const auto& node : nodes) {
    const std::string id = "doctor.drm.render_node:" + node.string();
    struct stat st {};
    if (::stat(node.c_str(), &st) == 0 && ::access(node.c_str(), R_OK | W_OK) != 0) {
      std::string error = std::strerror(errno);
      std::string group = group_of(st.st_gid);
      node_rows.push_back(fail_row(id,
                                   "this user may not open " + node.string() + " (" + error +
                                       "); it belongs to group '" + group + "'",
                                   "sudo usermod -aG " + group + " $USER, then log in again"));
      continue;
    }
    ++open_ok;
    Row row = core::make_row(id, "", RowStatus::pass);
    row.metrics["access"] = "read-write";
    node_rows.push_back(row);
  }
  summary.metrics["open_ok"] = open_ok;
  summary.reason = std::to_string(nodes.size()) + " render node(s) in " + folder.string() + ", " +
                   std::to_string(open_ok) + " that this user may open";
  rows.push_back(summary);
  rows.insert(rows.end(), node_rows.begin(), node_rows.end());
}

// --- environment ----------------------------------------------------------------------------

void environment_check(std::vector<Row>& rows) {
  auto variables = core::driver_environment();
  Row row = core::make_row("doctor.environment", "", RowStatus::pass);
  Json listed = Json::object();
  std::string text;
  for (const auto& [name, value] : variables) {
    listed[name] = value;
    text += (text.empty() ? "" : ", ") + name + "=" + value;
  }
  row.metrics["variables"] = listed;
  row.reason = variables.empty() ? "no variables that change driver behaviour are set"
                                 : std::to_string(variables.size()) +
                                       " variable(s) that change driver behaviour are set: " + text;
  rows.push_back(row);
}

}  // namespace

std::vector<Row> run_doctor(const core::Options& options) {
  std::vector<Row> rows;
  auto timed = [&rows](auto&& check) {
    size_t first = rows.size();
    auto start = std::chrono::steady_clock::now();
    check();
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Each group's time is shared among its rows; a library load dominates it.
    for (size_t i = first; i < rows.size(); ++i) {
      if (rows[i].duration_s == 0.0) rows[i].duration_s = seconds / double(rows.size() - first);
    }
  };
  timed([&] { opencl_checks(rows); });
  timed([&] { vulkan_checks(rows); });
  timed([&] { drm_checks(options, rows); });
  timed([&] { environment_check(rows); });
  return rows;
}

}  // namespace gauntlet::probes
