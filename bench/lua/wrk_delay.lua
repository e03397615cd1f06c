-- bench/rate.sh: wrk paced by its delay() hook, 1 ms between a connection's response and its
-- next request (wrk2's timer granularity). The reference for what CPU per request any client
-- pays when the server it drives is not saturated.
delay = function()
  return 1
end
