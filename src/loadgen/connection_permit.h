// The permit exchange between a generator client and its owner (the worker): SendPermit, what
// the owner answers a client ready to send; ConnectionOwner, what a client asks of and tells it;
// and HeldPermit, the client's side of it, one for the HTTP/1.1 Connection (plain and pipelined)
// and the H2Client.
//
// HeldPermit::next() asks the owner for the next permit at now_ns. A permit due later is held
// and the owner is told (ConnectionOwner::hold) to release it to the Connection at its time, no
// earlier: the client's send_pending() then marks it due. A permit due now is the caller's to
// send; it waited for a connection (SendPermit::waited_for_connection) when it was already late
// and the client was busy until now (after_busy), false for a client's first permit.
//
// Thread: the client's worker's, only. HeldPermit is plain data, reset by one assignment.
#pragma once

#include <cstdint>

namespace stampede::loadgen {

// The worker's answer when a connection is ready to send.
struct SendPermit {
  bool send = false;        // false: no more requests; the connection finishes
  std::int64_t at_ns = 0;   // intended send time (monotonic); later than now: wait for it
  std::uint64_t index = 0;  // the request's unique index (--index)
  // Set by the connection: the permit was already due when this connection became free to take
  // it (every connection was busy at its time: the server, or too few -c, kept it waiting);
  // false for a permit held until its time (any lag is then the generator's own).
  bool waited_for_connection = false;
};

class Connection;

// What a connection asks of and tells its worker.
class ConnectionOwner {
 public:
  virtual SendPermit next_send(std::int64_t now_ns) = 0;
  // The connection holds a permit due at at_ns, later than now: the owner calls its
  // send_pending() once that time has come (no earlier), unless it was told to stop first.
  virtual void hold(Connection& connection, std::int64_t at_ns) = 0;
  // The connection will send nothing more (it got a permit with send == false, or was told to
  // stop while idle).
  virtual void on_finished() = 0;
  // The connection's hook halted (RequestHook::halted): stop the whole run, as an interrupt.
  virtual void stop_run() = 0;

 protected:
  ~ConnectionOwner() = default;
};

struct HeldPermit {
  SendPermit permit;  // the permit waiting for its time (the owner holds it too)
  bool held = false;
  bool due = false;  // the owner released it (send_pending): take it next

  // Not called while a permit is held (the owner holds one per client). Returns the owner's
  // permit: `send` false, no more permits (the run sends nothing more); else, when `held` is now
  // set, it is due later and held here (the caller sends nothing now); else it is due now and
  // the caller's to send. Returned by value, built in place: this is the per-request path.
  SendPermit next(ConnectionOwner& owner, Connection& connection, std::int64_t now_ns,
                  bool after_busy) {
    SendPermit out = owner.next_send(now_ns);
    if (!out.send) return out;
    if (out.at_ns > now_ns) {
      permit = out;
      held = true;
      owner.hold(connection, out.at_ns);
    } else {
      out.waited_for_connection = after_busy && out.at_ns < now_ns;
    }
    return out;
  }

  // The released (or held) permit, now the caller's to send; nothing is held after it.
  const SendPermit& take() {
    held = due = false;
    return permit;
  }
};

}  // namespace stampede::loadgen
