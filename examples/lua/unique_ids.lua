-- stampede -n 1000 -R examples/lua/unique_ids.lua http://127.0.0.1:7357/
-- Every request asks for its own resource and carries a unique request id.
function request(id)
  return {
    path = "/items/" .. id,
    headers = {["x-request-id"] = string.format("req-%08d", id)},
  }
end
