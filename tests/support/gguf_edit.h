#pragma once
// Editing a GGUF file in place, for tests that need a file with one bad value.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace gauntlet::testing {

// Sets the u32 value of a GGUF key in place: the key's string is followed by its type (4) and
// the 4-byte value.
inline void set_u32_key(const std::filesystem::path& path, const std::string& key, uint32_t value) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t at = bytes.find(key);
  ASSERT_NE(at, std::string::npos) << key;
  uint32_t type = 0;
  std::memcpy(&type, bytes.data() + at + key.size(), 4);
  ASSERT_EQ(type, 4u) << key << " is not a u32";
  f.seekp(static_cast<std::streamoff>(at + key.size() + 4));
  f.write(reinterpret_cast<const char*>(&value), 4);
}

// Changes the last character of a tensor's name in place (its length-prefixed string among the
// tensor infos: a u64 length, then the name), so that a loader finds the tensor missing.
inline void rename_tensor(const std::filesystem::path& path, const std::string& name, char last) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::string prefixed(8, '\0');
  const uint64_t length = name.size();
  std::memcpy(prefixed.data(), &length, 8);
  prefixed += name;
  const size_t at = bytes.find(prefixed);
  ASSERT_NE(at, std::string::npos) << name;
  f.seekp(static_cast<std::streamoff>(at + prefixed.size() - 1));
  f.put(last);
}

}  // namespace gauntlet::testing
