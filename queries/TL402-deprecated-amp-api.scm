; TL402 deprecated-amp-api
; torch.cuda.amp.* / torch.cpu.amp.* calls (also through `from torch.cuda.amp
; import autocast` and aliases) when the code targets PyTorch 2.4 or later.

; autocast(), GradScaler(), @custom_fwd(cast_inputs=...)
((call) @finding
  (#api? @finding deprecated-amp)
  (#torch-version-at-least? @finding "2.4"))

; @torch.cuda.amp.custom_fwd without parentheses
((decorator
  [(identifier) (attribute)] @finding)
  (#api? @finding deprecated-amp)
  (#torch-version-at-least? @finding "2.4"))
