; TL308 dataloader-in-main-process (opt-in)
; A DataLoader without worker processes (no num_workers, or a literal 0)
; whose batches feed a step loop of a file that puts its work on an
; accelerator: every batch is loaded and augmented in the training process,
; between steps, while the device waits.
((call
  function: (_) @_callee) @finding
  (#api? @finding data-loader)
  (#not-loader-option? @finding num_workers)
  (#feeds-step-loop? @finding any)
  (#file-uses-accelerator? @finding))
