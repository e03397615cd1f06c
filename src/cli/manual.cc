#include "cli/manual.h"

#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "cli/completion.h"
#include "cli/man_page.h"
#include "cli/subcommands.h"
#include "core/input_file.h"

namespace stampede {
namespace {

namespace fs = std::filesystem;

Expected<void> write_manual_file(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (ec || !out) return make_error("cannot write '" + path.string() + "'");
  return {};
}

// The prose of `page`, or "" when it has none.
Expected<std::string> read_prose(const fs::path& prose_dir, const std::string& page) {
  const fs::path path = prose_dir / (page + ".txt");
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::string();
  return read_input_file(path.string(), kMiB, "the prose of " + page);
}

}  // namespace

Expected<void> write_manuals(const fs::path& out_dir, const fs::path& prose_dir,
                             std::string_view version) {
  std::vector<CommandDoc> docs;
  std::vector<std::string> pages;
  for (const Subcommand& sub : subcommands()) {
    auto doc = describe_subcommand(sub);
    if (!doc) return doc.error();
    pages.push_back(man_page_name(*doc));
    docs.push_back(std::move(doc).value());
  }
  std::error_code ec;
  if (fs::is_directory(out_dir / "man1", ec)) {
    for (const auto& entry : fs::directory_iterator(out_dir / "man1", ec)) {
      if (entry.path().extension() == ".1") fs::remove(entry.path(), ec);
    }
  }
  for (const CommandDoc& doc : docs) {
    const std::string page = man_page_name(doc);
    auto prose = read_prose(prose_dir, page);
    if (!prose) return prose.error();
    const std::string text = write_man_page(doc, {*prose, version, pages});
    if (auto r = write_manual_file(out_dir / "man1" / (page + ".1"), text); !r) return r;
  }
  if (auto r = write_manual_file(out_dir / "bash" / "stampede", write_bash_completion(docs)); !r)
    return r;
  return write_manual_file(out_dir / "zsh" / "_stampede", write_zsh_completion(docs));
}

}  // namespace stampede
