; TL212 evaluation-in-train-mode
; An evaluation pass (a loop, or a function, that runs a model's forward
; over data in a program that trains, while its forward results reach no
; backward and no optimizer step; with or without a grad-disabled context)
; of a model whose dropout or batch-norm layers act differently in train
; mode, while the model is still in the train mode that training or its
; construction left: dropout stays on and batch norm normalises with, and
; updates its running statistics from, the evaluation batches. Reported at
; the pass's first forward of the model; a forward whose output is thrown
; away (a batch-norm recalibration) is no evaluation.
((call
  function: (_) @_model) @finding
  (#module-forward? @finding)
  (#not-discarded? @finding)
  (#evaluation-pass? @finding)
  (#first-forward? @finding)
  (#mode-dependent? @_model)
  (#left-in-train-mode? @finding))
