;;; test.el --- End-to-end test of `torchlint server' with Emacs and eglot  -*- lexical-binding: t -*-
;; Driven by tests/lsp/test-emacs.py:  emacs --batch -l test.el
;;   TORCHLINT  the binary   TL_FILE  the script to open   TL_OUT  results (JSON)
;; Opens the script in python-mode under eglot, waits for flymake to hold
;; torchlint's diagnostics, edits the buffer (a new first line, the TL101
;; line fixed), waits for the diagnostics to follow, shuts the server down.
(require 'eglot)
(require 'flymake)
(require 'python)
(require 'json)

(defvar tl-bin (getenv "TORCHLINT"))
(defvar tl-file (getenv "TL_FILE"))
(defvar tl-out (getenv "TL_OUT"))
(defvar tl-result nil)

(defun tl-save ()
  (with-temp-file tl-out (insert (json-encode tl-result))))

(defun tl-fail (msg)
  (push (cons 'error msg) tl-result)
  (tl-save)
  (kill-emacs 1))

(defun tl-snapshot ()
  "Flymake's diagnostics from eglot: 0-based line, code-point column, text."
  (let (list)
    (dolist (d (flymake-diagnostics))
      (let ((beg (flymake-diagnostic-beg d)) (end (flymake-diagnostic-end d)))
        (push `((line . ,(1- (line-number-at-pos beg)))
                (col . ,(save-excursion (goto-char beg) (- beg (line-beginning-position))))
                (end_line . ,(1- (line-number-at-pos end)))
                (end_col . ,(save-excursion (goto-char end) (- end (line-beginning-position))))
                (type . ,(format "%s" (flymake-diagnostic-type d)))
                (text . ,(flymake-diagnostic-text d)))
              list)))
    (sort list (lambda (a b) (or (< (alist-get 'line a) (alist-get 'line b))
                                 (and (= (alist-get 'line a) (alist-get 'line b))
                                      (< (alist-get 'col a) (alist-get 'col b))))))))

(defun tl-wait (pred seconds)
  (let ((deadline (+ (float-time) seconds)) ok)
    (while (and (not (setq ok (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.05)
      (when (bound-and-true-p flymake-mode) (flymake-start)))
    ok))

(setq eglot-server-programs `((python-mode . (,tl-bin "server"))))
(setq eglot-send-changes-idle-time 0.1)
(find-file tl-file)
(python-mode)
(let ((project (cons 'transient (file-name-directory tl-file))))
  (condition-case err
      (eglot '(python-mode) project 'eglot-lsp-server (list tl-bin "server") "python")
    (error (tl-fail (format "eglot did not start: %S" err)))))
(unless (tl-wait (lambda () (flymake-diagnostics)) 30)
  (tl-fail "no diagnostics within 30 s"))
(push (cons 'opened (tl-snapshot)) tl-result)

;; Edit: a first line, and the accumulation fixed.
(let ((before (tl-snapshot)))
  (goto-char (point-min))
  (insert "# edited in Emacs: é🔥\n")
  (goto-char (point-min))
  (if (re-search-forward "running \\+= loss$" nil t)
      (replace-match "running += loss.item()")
    (tl-fail "no `running += loss` line"))
  ;; eglot sends changes from an idle timer, and a batch Emacs is never
  ;; idle: send them as that timer would.
  (eglot--signal-textDocument/didChange)
  (unless (tl-wait (lambda () (let ((now (tl-snapshot)))
                                (and now (not (equal now before))
                                     (= (alist-get 'line (car now)) (1+ (alist-get 'line (car before)))))))
                   30)
    (tl-fail "diagnostics did not follow the edit"))
  (push (cons 'edited (tl-snapshot)) tl-result))
(write-region (point-min) (point-max) tl-file nil 'quiet)
(let ((server (eglot-current-server)))
  (eglot-shutdown server)
  (push (cons 'stopped (not (jsonrpc-running-p server))) tl-result))
(tl-save)
(kill-emacs 0)
