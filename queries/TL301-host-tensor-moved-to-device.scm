; TL301 host-tensor-moved-to-device
; A tensor factory that allocates on the host and is moved to the device at
; once, on every step: torch.zeros(n).cuda(), torch.randn(n).to(device),
; Variable(torch.ones(n)).cuda(). Reported at the moving call. Not in a loop
; that builds a new model in each iteration (a sweep over configurations: a
; one-off per configuration, not a hot step).
((call
  function: (attribute
    object: (_) @_host
    attribute: (identifier) @_method)) @finding
  (#any-of? @_method "cuda" "to")
  (#moves-to-device? @finding)
  (#per-step? @finding any)
  (#host-factory? @_host)
  (#not-iteration-builds-model? @finding))
