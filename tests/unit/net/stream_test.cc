// net::Stream: TcpStream over a socket pair, and the TestStream the connections' unit tests
// use, whose faults must do exactly what its header says.
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "net/fd.h"
#include "net/tcp_stream.h"
#include "support/test_stream.h"

namespace stampede::net {
namespace {

using stampede::testing::TestStream;
using Fault = TestStream::Fault;

struct Pair {
  Fd a, b;
  Pair() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    a.reset(fds[0]);
    b.reset(fds[1]);
  }
};

std::string read_all(int fd) {
  std::string out;
  char buffer[256];
  ssize_t r;
  while ((r = ::read(fd, buffer, sizeof buffer)) > 0)
    out.append(buffer, static_cast<std::size_t>(r));
  return out;
}

TEST(TcpStream, ReadsWritesGathersAndShutsDown) {
  Pair pair;
  const int peer = pair.b.get();
  TcpStream stream(std::move(pair.a));
  std::size_t n = 0;
  char buffer[64];
  EXPECT_EQ(stream.read(buffer, sizeof buffer, n), IoStatus::WouldBlock);
  ASSERT_EQ(stream.write("head ", 5, n), IoStatus::Done);
  EXPECT_EQ(n, 5u);
  const iovec parts[] = {{const_cast<char*>("GET "), 4}, {const_cast<char*>("/x"), 2}};
  ASSERT_EQ(stream.writev(parts, 2, n), IoStatus::Done);
  EXPECT_EQ(n, 6u);
  EXPECT_EQ(read_all(peer), "head GET /x");
  ASSERT_EQ(::write(peer, "reply", 5), 5);
  ASSERT_EQ(stream.read(buffer, sizeof buffer, n), IoStatus::Done);
  EXPECT_EQ(std::string(buffer, n), "reply");
  stream.shutdown_write();
  char c;
  EXPECT_EQ(::read(peer, &c, 1), 0);  // the peer sees the FIN
  EXPECT_EQ(stream.handshake(), IoStatus::Done);
  EXPECT_FALSE(stream.wants_write());
}

TEST(TcpStream, PeerGoneIsEofThenEpipeWithoutSignal) {
  Pair pair;
  TcpStream stream(std::move(pair.a));
  pair.b.reset();
  std::size_t n = 0;
  char buffer[8];
  EXPECT_EQ(stream.read(buffer, sizeof buffer, n), IoStatus::Eof);
  EXPECT_EQ(stream.write("x", 1, n), IoStatus::Error);  // MSG_NOSIGNAL: no SIGPIPE kills us
  EXPECT_EQ(stream.error(), EPIPE);
  const iovec part{const_cast<char*>("y"), 1};
  EXPECT_EQ(stream.writev(&part, 1, n), IoStatus::Error);
  EXPECT_EQ(stream.error(), EPIPE);
}

TEST(TcpStream, OwnsItsSocket) {
  Pair pair;
  const int peer = pair.b.get();
  { TcpStream stream(std::move(pair.a)); }
  char c;
  EXPECT_EQ(::read(peer, &c, 1), 0);  // closed by the stream's destructor
}

TEST(TestStream, HandsOutFedBytesWithinTheReadLimitThenEof) {
  TestStream s;
  std::size_t n = 0;
  char buffer[16];
  EXPECT_EQ(s.read(buffer, sizeof buffer, n), IoStatus::WouldBlock);
  s.feed("abcdefgh");
  s.set_read_limit(3);
  ASSERT_EQ(s.read(buffer, sizeof buffer, n), IoStatus::Done);
  EXPECT_EQ(std::string(buffer, n), "abc");
  s.set_read_limit(100);
  ASSERT_EQ(s.read(buffer, 4, n), IoStatus::Done);
  EXPECT_EQ(std::string(buffer, n), "defg");
  EXPECT_EQ(s.unread(), 1u);
  s.feed_eof();
  ASSERT_EQ(s.read(buffer, sizeof buffer, n), IoStatus::Done);
  EXPECT_EQ(std::string(buffer, n), "h");
  EXPECT_EQ(s.read(buffer, sizeof buffer, n), IoStatus::Eof);
  EXPECT_EQ(s.operations(), 5u);
  EXPECT_GE(s.fd(), 0);
}

TEST(TestStream, WriteCapacityAndGatheredWrites) {
  TestStream s;
  s.set_write_capacity(5);
  std::size_t n = 0;
  const iovec parts[] = {{const_cast<char*>("abc"), 3}, {const_cast<char*>("defg"), 4}};
  ASSERT_EQ(s.writev(parts, 2, n), IoStatus::Done);
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(s.write("h", 1, n), IoStatus::WouldBlock);
  s.add_write_capacity(10);
  ASSERT_EQ(s.write("fgh", 3, n), IoStatus::Done);
  EXPECT_EQ(s.take_written(), "abcdefgh");
  EXPECT_EQ(s.take_written(), "");
  s.shutdown_write();
  EXPECT_TRUE(s.write_shut());
  EXPECT_EQ(s.write("i", 1, n), IoStatus::Error);
  EXPECT_EQ(s.error(), EPIPE);
}

TEST(TestStream, FaultsHitTheirOperationOnly) {
  TestStream s;
  s.feed("0123456789");
  s.fail_at(1, Fault::WouldBlock);
  s.fail_at(2, Fault::Short, 2);
  s.fail_at(3, Fault::WantWrite);
  s.fail_at(5, Fault::Eof);
  std::size_t n = 0;
  char buffer[16];
  EXPECT_EQ(s.read(buffer, sizeof buffer, n), IoStatus::WouldBlock);
  EXPECT_FALSE(s.wants_write());
  ASSERT_EQ(s.read(buffer, sizeof buffer, n), IoStatus::Done);
  EXPECT_EQ(std::string(buffer, n), "01");
  EXPECT_EQ(s.read(buffer, sizeof buffer, n), IoStatus::WouldBlock);
  EXPECT_TRUE(s.wants_write());
  ASSERT_EQ(s.read(buffer, 3, n), IoStatus::Done);  // operation 4: no fault
  EXPECT_FALSE(s.wants_write());
  EXPECT_EQ(std::string(buffer, n), "234");
  EXPECT_EQ(s.read(buffer, sizeof buffer, n), IoStatus::Eof);  // planned, bytes still unread
  EXPECT_EQ(s.unread(), 5u);
  ASSERT_EQ(s.read(buffer, sizeof buffer, n), IoStatus::Done);
  EXPECT_EQ(std::string(buffer, n), "56789");
}

TEST(TestStream, ResetIsFinal) {
  TestStream s;
  s.feed("abc");
  s.fail_at(2, Fault::Reset);
  std::size_t n = 0;
  char buffer[4];
  ASSERT_EQ(s.read(buffer, 1, n), IoStatus::Done);
  EXPECT_EQ(s.write("x", 1, n), IoStatus::Error);
  EXPECT_EQ(s.error(), ECONNRESET);
  EXPECT_EQ(s.read(buffer, sizeof buffer, n), IoStatus::Error);
  EXPECT_EQ(s.handshake(), IoStatus::Error);
  EXPECT_EQ(s.written(), "");
}

TEST(TestStream, CloseMidWriteDeliversAPrefixThenFails) {
  TestStream s;
  s.fail_at(2, Fault::CloseMidWrite, 4);
  s.fail_at(1, Fault::Short, 1);
  std::size_t n = 0;
  ASSERT_EQ(s.write("abc", 3, n), IoStatus::Done);
  EXPECT_EQ(n, 1u);
  const iovec parts[] = {{const_cast<char*>("bc"), 2}, {const_cast<char*>("defg"), 4}};
  EXPECT_EQ(s.writev(parts, 2, n), IoStatus::Error);
  EXPECT_EQ(s.error(), EPIPE);
  EXPECT_EQ(s.written(), "abcde");
  EXPECT_EQ(s.write("z", 1, n), IoStatus::Error);
}

TEST(TestStream, HandshakeFaults) {
  TestStream s;
  s.fail_at(1, Fault::WantWrite);
  EXPECT_EQ(s.handshake(), IoStatus::WouldBlock);
  EXPECT_TRUE(s.wants_write());
  EXPECT_EQ(s.handshake(), IoStatus::Done);
  EXPECT_TRUE(s.handshake_called());
}

}  // namespace
}  // namespace stampede::net
