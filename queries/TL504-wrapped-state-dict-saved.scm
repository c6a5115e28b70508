; TL504 wrapped-state-dict-saved
; `X.state_dict()` written by torch.save (directly, as an entry of a
; checkpoint dict, or through a name a later torch.save in the function
; passes) where X is a DistributedDataParallel, DataParallel or
; torch.compile wrapper: every key carries the wrapper's prefix. The
; wrapped module (`X.module`, `X._orig_mod`), accelerate's unwrap_model,
; keys rewritten before saving, and a wrapper bound only on the other
; branch of the `if` the save runs under (`if ddp:` ... `else:`) never
; match. Two patterns, one per prefix, so that the fix names the right
; attribute (@_dp: `.module`, @_compiled: `._orig_mod`).

; DistributedDataParallel / DataParallel: `module.`
((call
  function: (attribute
    object: [
      (identifier)
      (attribute)
      (call)
    ] @_wrapper @_dp
    attribute: (identifier) @_method)
  arguments: (argument_list)) @finding
  (#eq? @_method "state_dict")
  (#saved? @finding)
  (#wrapped-by? @_wrapper data-parallel)
  (#set! prefix "module.")
  (#set! inner "module")
  (#set! wrapper "DistributedDataParallel / DataParallel"))

; torch.compile: `_orig_mod.`
((call
  function: (attribute
    object: [
      (identifier)
      (attribute)
      (call)
    ] @_wrapper @_compiled
    attribute: (identifier) @_method)
  arguments: (argument_list)) @finding
  (#eq? @_method "state_dict")
  (#saved? @finding)
  (#wrapped-by? @_wrapper compiled)
  (#set! prefix "_orig_mod.")
  (#set! inner "_orig_mod")
  (#set! wrapper "torch.compile"))
