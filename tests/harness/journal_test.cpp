#include "harness/journal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "tests/support/temp_dir.h"

namespace gauntlet::harness {
namespace {

class JournalTest : public ::testing::Test {
 protected:
  gauntlet::testing::TempDir dir_{"journal"};
  std::filesystem::path path_ = dir_ / "report.json.journal";
};

TEST_F(JournalTest, EntriesSurviveAndResumeReadsThem) {
  {
    auto journal = Journal::open(path_, false);
    ASSERT_TRUE(journal.is_ok());
    ASSERT_TRUE(journal->append("conform:opencl:0", {{"rows", 3}}).is_ok());
    ASSERT_TRUE(journal->append("stress:opencl:0", {{"budget", 1024}}).is_ok());
  }
  auto resumed = Journal::open(path_, true);
  ASSERT_TRUE(resumed.is_ok());
  EXPECT_EQ(resumed->size(), 2u);
  ASSERT_NE(resumed->find("stress:opencl:0"), nullptr);
  EXPECT_EQ((*resumed->find("stress:opencl:0"))["budget"], 1024);
  EXPECT_EQ(resumed->find("profile:x"), nullptr);
}

TEST_F(JournalTest, AnExistingJournalIsNotOverwrittenWithoutResume) {
  ASSERT_TRUE(Journal::open(path_, false)->append("a", 1).is_ok());
  auto again = Journal::open(path_, false);
  ASSERT_FALSE(again.is_ok());
  EXPECT_NE(again.error().message.find("--resume"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(path_));
}

TEST_F(JournalTest, ATornLastLineIsDroppedOnResume) {
  ASSERT_TRUE(Journal::open(path_, false)->append("a", 1).is_ok());
  std::ofstream(path_, std::ios::app) << "{\"unit\": \"b\", \"payl";
  auto resumed = Journal::open(path_, true);
  ASSERT_TRUE(resumed.is_ok()) << resumed.error().describe();
  EXPECT_EQ(resumed->size(), 1u);
  EXPECT_NE(resumed->find("a"), nullptr);
}

TEST_F(JournalTest, ATornLastLineIsCutSoTheNextEntryStartsALineOfItsOwn) {
  ASSERT_TRUE(Journal::open(path_, false)->append("a", 1).is_ok());
  std::ofstream(path_, std::ios::app) << "{\"unit\": \"b\", \"payl";
  ASSERT_TRUE(Journal::open(path_, true)->append("c", 3).is_ok());
  auto again = Journal::open(path_, true);
  ASSERT_TRUE(again.is_ok()) << again.error().describe();
  EXPECT_EQ(again->size(), 2u);
  ASSERT_NE(again->find("c"), nullptr);
  EXPECT_EQ(*again->find("c"), 3);
}

TEST_F(JournalTest, APayloadOfTheWrongShapeIsAnErrorNamingTheUnit) {
  ASSERT_TRUE(Journal::open(path_, false)->append("stress:host", "not an object").is_ok());
  auto journal = Journal::open(path_, true);
  ASSERT_TRUE(journal.is_ok());
  auto decoded = journal_payload<std::map<std::string, int>>(*journal->find("stress:host"),
                                                             "stress:host", *journal);
  ASSERT_FALSE(decoded.is_ok());
  EXPECT_NE(decoded.error().message.find("the entry of 'stress:host' is damaged"),
            std::string::npos)
      << decoded.error().message;
}

TEST_F(JournalTest, DamageInTheMiddleIsAnError) {
  std::ofstream(path_) << "garbage\n{\"unit\": \"a\", \"payload\": 1}\n";
  auto resumed = Journal::open(path_, true);
  ASSERT_FALSE(resumed.is_ok());
  EXPECT_NE(resumed.error().message.find("line 1"), std::string::npos);
}

TEST_F(JournalTest, ResumeWithoutAJournalIsAnError) {
  auto resumed = Journal::open(path_, true);
  ASSERT_FALSE(resumed.is_ok());
  EXPECT_EQ(resumed.error().kind, core::ErrorKind::not_found);
}

}  // namespace
}  // namespace gauntlet::harness
