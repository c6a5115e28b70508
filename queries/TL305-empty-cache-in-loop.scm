; TL305 empty-cache-in-loop
; torch.cuda.empty_cache() on every step (not once per epoch, not under an
; every-N-steps guard), unless each iteration builds a new model: a sweep or
; benchmark that frees one configuration before the next.
((call) @finding
  (#api? @finding empty-cache)
  (#per-step? @finding any)
  (#not-iteration-builds-model? @finding))
