; TL504 wrapped-state-dict-saved
; `X.state_dict()` written by torch.save (directly, as an entry of a
; checkpoint dict, or through a name a later torch.save in the function
; passes) where X is a DistributedDataParallel, DataParallel or
; torch.compile wrapper: every key carries the wrapper's prefix. The
; wrapped module (`X.module`, `X._orig_mod`), accelerate's unwrap_model and
; keys rewritten before saving never match.
((call
  function: (attribute
    object: [
      (identifier)
      (attribute)
      (call)
    ] @_wrapper
    attribute: (identifier) @_method)
  arguments: (argument_list)) @finding
  (#eq? @_method "state_dict")
  (#wrapped-by? @_wrapper prefixed)
  (#saved? @finding))
