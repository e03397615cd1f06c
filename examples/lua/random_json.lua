-- stampede -n 1000 -T application/json -p examples/lua/random_json.lua http://127.0.0.1:7357/
-- Each POST body is a different random JSON document (body(id) gives the body of request id).
local names = {"ada", "grace", "edsger", "barbara", "donald"}

function body(id)
  local name = names[math.random(#names)]
  return string.format('{"id":%d,"name":"%s","score":%d}', id, name, math.random(0, 100))
end
