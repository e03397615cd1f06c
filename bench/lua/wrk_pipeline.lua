-- bench/pipeline.sh: wrk's own pipelining example (wrk's scripts/pipeline.lua, which Debian's
-- wrk package does not ship), with the depth as its argument: init builds N requests with
-- wrk.format and request() returns them concatenated, so each write carries N requests and wrk
-- records one latency per batch of N. `wrk ... -s bench/lua/wrk_pipeline.lua URL -- 16`
init = function(args)
  local depth = tonumber(args[1]) or 16
  local r = {}
  for i = 1, depth do
    r[i] = wrk.format(nil, "/")
  end
  req = table.concat(r)
end

request = function()
  return req
end
