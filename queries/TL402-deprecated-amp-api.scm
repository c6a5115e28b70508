; TL402 deprecated-amp-api
; torch.cuda.amp.* / torch.cpu.amp.* calls (also through `from torch.cuda.amp
; import autocast` and aliases) when the code targets PyTorch 2.4 or later.
; Each pattern sets `device`, the device type its torch.amp form takes,
; which the message quotes. A fallback branch for a PyTorch older than the
; target (`A if TORCH_GE_2_4 else torch.cuda.amp.GradScaler()`) needs the
; old name: not reported.

; autocast(), GradScaler(), @custom_fwd(cast_inputs=...) of torch.cuda.amp
((call) @finding
  (#api? @finding deprecated-amp)
  (#not-api? @finding cpu-amp)
  (#torch-version-at-least? @finding "2.4")
  (#not-old-torch-only? @finding)
  (#set! device "cuda"))

; torch.cpu.amp.autocast(), torch.cpu.amp.GradScaler()
((call) @finding
  (#api? @finding cpu-amp)
  (#torch-version-at-least? @finding "2.4")
  (#not-old-torch-only? @finding)
  (#set! device "cpu"))

; @torch.cuda.amp.custom_fwd without parentheses (torch.cpu.amp has none)
((decorator
  [(identifier) (attribute)] @finding)
  (#api? @finding deprecated-amp)
  (#torch-version-at-least? @finding "2.4")
  (#not-old-torch-only? @finding)
  (#set! device "cuda"))

; The same calls written `torch.cuda.amp.X(...)` / `torch.cpu.amp.X(...)`
; through the torch module, captured part by part for the fix (the engine
; reports one finding per call, keeping this match's fix).
((call
  function: (attribute
    object: (attribute
      object: (attribute
        object: (identifier) @_torch
        attribute: (identifier) @_device)
      attribute: (identifier) @_amp) @_module
    attribute: (identifier) @_name)
  arguments: (argument_list) @_args) @finding
  (#eq? @_amp "amp")
  (#eq? @_device "cuda")
  (#api? @finding deprecated-amp)
  (#torch-version-at-least? @finding "2.4")
  (#not-old-torch-only? @finding)
  (#set! device "cuda"))

((call
  function: (attribute
    object: (attribute
      object: (attribute
        object: (identifier) @_torch
        attribute: (identifier) @_device)
      attribute: (identifier) @_amp) @_module
    attribute: (identifier) @_name)
  arguments: (argument_list) @_args) @finding
  (#eq? @_amp "amp")
  (#eq? @_device "cpu")
  (#api? @finding cpu-amp)
  (#torch-version-at-least? @finding "2.4")
  (#not-old-torch-only? @finding)
  (#set! device "cpu"))

; @torch.cuda.amp.custom_fwd without parentheses, part by part
((decorator
  (attribute
    object: (attribute
      object: (attribute
        object: (identifier) @_torch
        attribute: (identifier) @_device)
      attribute: (identifier) @_amp)
    attribute: (identifier) @_name) @finding)
  (#eq? @_amp "amp")
  (#eq? @_device "cuda")
  (#api? @finding deprecated-amp)
  (#torch-version-at-least? @finding "2.4")
  (#not-old-torch-only? @finding)
  (#set! device "cuda"))
