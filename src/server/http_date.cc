#include "server/http_date.h"

#include <time.h>

namespace stampede::server {
namespace {

constexpr std::string_view kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

char* put(char* p, std::string_view s) {
  for (char c : s)
    *p++ = c;
  return p;
}

char* put2(char* p, int n) {
  *p++ = static_cast<char>('0' + n / 10);
  *p++ = static_cast<char>('0' + n % 10);
  return p;
}

}  // namespace

HttpDate format_http_date(std::int64_t unix_seconds) {
  const time_t t = static_cast<time_t>(unix_seconds);
  tm utc{};
  gmtime_r(&t, &utc);
  HttpDate out;
  char* p = out.data();
  p = put(p, kDays[utc.tm_wday]);
  p = put(p, ", ");
  p = put2(p, utc.tm_mday);
  *p++ = ' ';
  p = put(p, kMonths[utc.tm_mon]);
  *p++ = ' ';
  const int year = utc.tm_year + 1900;
  p = put2(p, year / 100 % 100);
  p = put2(p, year % 100);
  *p++ = ' ';
  p = put2(p, utc.tm_hour);
  *p++ = ':';
  p = put2(p, utc.tm_min);
  *p++ = ':';
  p = put2(p, utc.tm_sec);
  put(p, " GMT");
  return out;
}

std::int64_t wall_seconds() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec;
}

std::int64_t ns_to_next_wall_second() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return 1'000'000'000 - ts.tv_nsec;
}

}  // namespace stampede::server
