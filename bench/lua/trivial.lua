-- bench/lua.sh: the cheapest request() script, to measure what scripting costs per request.
function request(id)
  return {path = "/"}
end
