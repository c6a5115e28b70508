; TL502 ddp-accumulation-without-no-sync (opt-in)
; Under gradient accumulation, a backward through a DistributedDataParallel
; model on a step that does not update, outside `model.no_sync()`: its
; gradients are all-reduced for nothing.
((call
  function: (attribute
    attribute: (identifier) @_method)) @finding
  (#eq? @_method "backward")
  (#call-does? @finding backward)
  (#accumulation-backward? @finding)
  (#backward-through? @finding ddp)
  (#not-no-sync? @finding))
