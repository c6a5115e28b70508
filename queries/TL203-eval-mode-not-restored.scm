; TL203 eval-mode-not-restored
; A training loop puts a trained model in eval mode (directly, or through a
; local function it calls) and its iteration never switches it back with
; `.train()`: after the first evaluation, training runs in eval mode.

; model.eval() (or model.train(False)) in the loop body
((call
  function: (attribute
    attribute: (identifier) @_method)) @finding
  (#any-of? @_method "eval" "train")
  (#call-does? @finding eval)
  (#leaves-eval-mode? @finding))

; evaluate(model, loader): a local function that calls model.eval()
((call
  function: [
    (identifier)
    (attribute)
  ]) @finding
  (#not-call-does? @finding eval)
  (#leaves-eval-mode? @finding))
