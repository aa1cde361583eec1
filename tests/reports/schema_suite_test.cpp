// The official JSON-Schema-Test-Suite (Debian's json-schema-test-suite) for draft 7, the draft the
// report schema declares, run through gauntlet's own validation path (check_against_schema): the
// validation gauntlet does is the standard's. A missing suite is a failure, not a skip.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/json.h"
#include "reports/schema_check.h"

namespace gauntlet::reports {
namespace {

namespace fs = std::filesystem;

const fs::path kSuite = "/usr/share/json-schema-test-suite/tests/draft7";

// A schema that names another document by URI ("$ref": "http://json-schema.org/draft-07/schema#",
// or a relative "$ref" under an "$id" of http://localhost:1234/...): gauntlet's schemas are
// self-contained and its validation fetches nothing (a report must never make the tool reach the
// network), so those cases are out of scope.
bool refers_to_another_document(const core::Json& schema) {
  if (schema.is_object()) {
    for (const char* key : {"$ref", "$id"}) {
      auto it = schema.find(key);
      if (it != schema.end() && it->is_string() && it->get<std::string>().rfind("http", 0) == 0) {
        return true;
      }
    }
  }
  if (schema.is_structured()) {
    for (const auto& child : schema) {
      if (refers_to_another_document(child)) return true;
    }
  }
  return false;
}

TEST(JsonSchemaTestSuite, EveryDraft7CaseValidatesAsTheSuiteSays) {
  ASSERT_TRUE(fs::is_directory(kSuite))
      << kSuite << " is missing: apt-get install json-schema-test-suite (ci/install-deps.sh)";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kSuite)) {
    // refRemote.json's schemas refer to http://localhost:1234/...: gauntlet's schemas refer to
    // nothing outside themselves, and its validation fetches nothing.
    if (entry.path().extension() == ".json" && entry.path().filename() != "refRemote.json") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 30u);
  int cases = 0;
  std::vector<std::string> other_documents;
  for (const auto& file : files) {
    std::ifstream in(file);
    const auto groups = core::Json::parse(in);
    for (const auto& group : groups) {
      if (refers_to_another_document(group["schema"])) {
        other_documents.push_back(file.filename().string() + ": " +
                                  group["description"].get<std::string>());
        continue;
      }
      for (const auto& test : group["tests"]) {
        ++cases;
        const bool valid = test["valid"].get<bool>();
        const auto violations = check_against_schema(test["data"], group["schema"], 5);
        EXPECT_EQ(violations.empty(), valid)
            << file.filename().string() << ": " << group["description"].get<std::string>() << ": "
            << test["description"].get<std::string>()
            << (violations.empty() ? "" : ": " + violations[0].describe());
      }
    }
  }
  EXPECT_GE(cases, 400);
  // Only a few groups need another document; the rest of the suite ran.
  EXPECT_LE(other_documents.size(), 6u) << ::testing::PrintToString(other_documents);
  std::printf("%d draft-7 cases passed; %zu groups name another document (not run)\n", cases,
              other_documents.size());
}

}  // namespace
}  // namespace gauntlet::reports
