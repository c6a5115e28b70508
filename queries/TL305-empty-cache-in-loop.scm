; TL305 empty-cache-in-loop
; torch.cuda.empty_cache() on every step (not once per epoch, not under an
; every-N-steps guard).
((call) @finding
  (#api? @finding empty-cache)
  (#per-step? @finding any))
