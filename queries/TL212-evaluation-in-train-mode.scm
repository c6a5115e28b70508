; TL212 evaluation-in-train-mode
; An evaluation pass (a loop, or a function, that runs a model's forward
; with gradients off and trains nothing) of a model whose dropout or
; batch-norm layers act differently in train mode, while the model is still
; in the train mode that training or its construction left: dropout stays
; on and batch norm normalises with, and updates its running statistics
; from, the evaluation batches. Reported at the pass's first forward of the
; model; a forward whose output is thrown away (a batch-norm
; recalibration) is no evaluation.
((call
  function: (_) @_model) @finding
  (#module-forward? @finding)
  (#not-discarded? @finding)
  (#under-context? @finding grad-disabled)
  (#in-step-loop? @finding any)
  (#pass-lacks? @finding backward)
  (#pass-lacks? @finding optimizer-step)
  (#not-reaches-backward? @finding)
  (#first-forward? @finding)
  (#mode-dependent? @_model)
  (#left-in-train-mode? @finding))
