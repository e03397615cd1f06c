-- stampede -n 1000 -R examples/lua/login.lua http://127.0.0.1:7357/
-- A login, then authenticated requests. Each worker thread has its own Lua state, so each logs
-- in (its requests log in until the first login response arrives) and then uses the token.
response_headers = {"x-token"}   -- the response headers response() is given
local token = nil

function request(id)
  if token == nil then
    return {method = "POST", path = "/login", body = '{"user":"demo","password":"demo"}',
            headers = {["content-type"] = "application/json"}}
  end
  return {path = "/account", headers = {authorization = "Bearer " .. token}}
end

function response(status, headers, body)
  if token == nil then
    if status ~= 200 then return "LOGIN_FAILED" end
    -- A real service returns a token; stampede's test server has none, so make one up.
    token = headers["x-token"] or "demo-token"
  end
  return status < 400
end

function done(summary)
  io.stderr:write(string.format("%d requests, %d errors\n", summary.totalRequests,
                                summary.totalErrors))
end
