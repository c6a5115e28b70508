; TL215 sampler-epoch-not-set
; A DataLoader drawing from a shuffling DistributedSampler is iterated by a
; step loop inside an epoch loop, and nothing calls set_epoch on the
; sampler: its shuffle is seeded by the epoch, so every epoch sees the same
; order. Reported at the iterable of the loop over the loader.
((for_statement
  right: (_) @finding) @_loop
  (#repeated-step-loop? @_loop)
  (#sampler-epoch-unset? @finding))
