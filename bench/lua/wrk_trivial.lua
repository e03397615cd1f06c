-- bench/lua.sh: wrk's equivalent of trivial.lua (a request() that builds every request).
request = function()
  return wrk.format("GET", "/")
end
