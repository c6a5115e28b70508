-- End-to-end test of `torchlint server` with Neovim's built-in LSP client
-- (Debian 12 ships Neovim 0.7: vim.lsp.start_client + buf_attach_client;
-- newer versions also have vim.lsp.start). Driven by tests/lsp/test-nvim.py:
--   TORCHLINT  the binary        TL_FILE  the training script to open
--   TL_OUT     where the results go (JSON), read by the driver
-- Steps: open the script, wait for diagnostics, ask for a hover and code
-- actions, edit the buffer (insert a line at the top, fix the TL101 line),
-- wait for the diagnostics to follow, fill the quickfix list from
-- `--format concise` with the documented errorformat, stop the server.
local bin = os.getenv("TORCHLINT")
local file = os.getenv("TL_FILE")
local out = os.getenv("TL_OUT")
local result = { steps = {} }

local function save()
  local f = assert(io.open(out, "w"))
  f:write(vim.fn.json_encode(result))
  f:close()
end

local function fail(msg)
  result.error = msg
  save()
  vim.cmd("cquit 1")
end

local function snapshot(bufnr)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(list, { code = code, lnum = d.lnum, col = d.col, end_lnum = d.end_lnum,
                         end_col = d.end_col, source = d.source, severity = d.severity })
  end
  table.sort(list, function(a, b)
    if a.lnum ~= b.lnum then return a.lnum < b.lnum end
    if a.col ~= b.col then return a.col < b.col end
    return a.code < b.code
  end)
  return list
end

vim.cmd("edit " .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()
local config = {
  name = "torchlint",
  cmd = { bin, "server" },
  root_dir = vim.fn.fnamemodify(file, ":p:h"),
}
local client_id
if vim.lsp.start then
  client_id = vim.lsp.start(config, { bufnr = bufnr })
else
  client_id = vim.lsp.start_client(config)
  vim.lsp.buf_attach_client(bufnr, client_id)
end
if not client_id then fail("the client did not start") end

if not vim.wait(20000, function() return #vim.diagnostic.get(bufnr) > 0 end, 20) then
  fail("no diagnostics within 20 s")
end
result.steps.opened = snapshot(bufnr)

-- Hover on the first TL101 and code actions there.
local first
for _, d in ipairs(result.steps.opened) do
  if d.code == "TL101" then first = d break end
end
if not first then fail("no TL101 in the opened script") end
local client = vim.lsp.get_client_by_id(client_id)
local line = vim.api.nvim_buf_get_lines(bufnr, first.lnum, first.lnum + 1, false)[1]
local _, character = vim.str_utfindex(line, first.col) -- (UTF-32, UTF-16)
local pos = { line = first.lnum, character = character }
local hover = vim.lsp.buf_request_sync(bufnr, "textDocument/hover",
  { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = pos }, 10000)
for _, r in pairs(hover or {}) do
  if r.result then result.hover = r.result.contents.value end
end
local actions = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction",
  { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, range = { start = pos, ["end"] = pos },
    context = { diagnostics = {} } }, 10000)
result.actions = {}
for _, r in pairs(actions or {}) do
  for _, a in ipairs(r.result or {}) do table.insert(result.actions, a.title) end
end

-- Edit: a new first line (everything moves down one line), and the
-- accumulation fixed on the TL101 line (now one further down).
local before = vim.api.nvim_buf_get_changedtick(bufnr)
vim.api.nvim_buf_set_lines(bufnr, 0, 0, false, { "# edited in Neovim: é🔥" })
local l = vim.api.nvim_buf_get_lines(bufnr, first.lnum + 1, first.lnum + 2, false)[1]
local fixed = l:gsub("%+= loss$", "+= loss.item()")
vim.api.nvim_buf_set_lines(bufnr, first.lnum + 1, first.lnum + 2, false, { fixed })
result.edited_line = fixed
local moved = function()
  local now = snapshot(bufnr)
  if #now == 0 then return false end
  for _, d in ipairs(now) do
    if d.code == "TL101" and d.lnum == first.lnum + 1 then return false end
  end
  return now[1].lnum ~= result.steps.opened[1].lnum
end
if not vim.wait(20000, moved, 20) then fail("diagnostics did not follow the edit") end
result.steps.edited = snapshot(bufnr)
result.changedtick = { before, vim.api.nvim_buf_get_changedtick(bufnr) }

-- The quickfix list from the concise format, with the errorformat of docs/integrations.md.
vim.cmd("write")
vim.o.errorformat = "%f:%l:%c: %m,%-G%.%#"
vim.fn.setqflist({}, "r", { lines = vim.fn.systemlist({ bin, "--format", "concise", file }),
                             efm = vim.o.errorformat })
result.qf = {}
for _, e in ipairs(vim.fn.getqflist()) do
  if e.valid == 1 then
    table.insert(result.qf, { lnum = e.lnum, col = e.col, text = e.text,
                              file = vim.fn.bufname(e.bufnr) })
  end
end

vim.lsp.stop_client(client_id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
result.stopped = vim.lsp.get_client_by_id(client_id) == nil
save()
vim.cmd("qall!")
