#!/usr/bin/env python3
"""CPU tests of the reproductions (PyTorch 1.13 or later, no GPU).

What a CPU can show, asserted on a fresh run of each case through the same
caselib.measure() the harness uses: the correctness failures, the unsafe
load, and the memory mechanisms measured without a device (bytes of saved
activations, autograd nodes kept alive). Cases that need a GPU (a NEEDS_GPU
file) are only checked to run. Then the committed CPU results are checked
to be reproducible: a fresh run reaches the same verdict on every piece of
evidence.

    python3 validate/test_cpu.py            # all
    python3 validate/test_cpu.py -k TL201   # one
"""
import json
import sys
import unittest
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import caselib  # noqa: E402
import torch  # noqa: E402

CPU = torch.device("cpu")
_cache = {}


def result(code):
    if code not in _cache:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _cache[code] = caselib.measure(code, CPU)
    return _cache[code]


def variants(code):
    r = result(code)
    return r["variants"]["flagged"], r["variants"]["fixed"]


class Memory(unittest.TestCase):
    def test_TL101_kept_loss_pins_saved_activations_every_iteration(self):
        f, x = variants("TL101")
        held = f["saved_bytes_per_iter"]
        # Each iteration adds the same number of bytes: linear growth.
        steps = {b - a for a, b in zip(held, held[1:])}
        self.assertEqual(len(steps), 1)
        self.assertGreater(steps.pop(), 0)
        self.assertEqual(len(set(x["saved_bytes_per_iter"])), 1)  # constant: the latest graph only
        self.assertGreater(f["graph_nodes_growth_per_iter"], 0)
        self.assertEqual(x["graph_nodes_per_iter"][-1], 0)
        self.assertEqual(f["signal"], x["signal"])  # same losses: the cost is memory only

    def test_TL106_kept_outputs_pin_saved_activations_every_iteration(self):
        f, x = variants("TL106")
        held = f["saved_bytes_per_iter"]
        # A loop that trains nothing: each kept output adds its forward's
        # saved activations, the same bytes every iteration.
        steps = {b - a for a, b in zip(held, held[1:])}
        self.assertEqual(len(steps), 1)
        self.assertGreater(steps.pop(), 0)
        self.assertEqual(len(set(x["saved_bytes_per_iter"])), 1)  # constant: the latest output's only
        self.assertGreater(f["graph_nodes_growth_per_iter"], 0)
        self.assertEqual(x["graph_nodes_per_iter"][-1], 0)
        self.assertEqual(f["signal"], x["signal"])  # the same features: the cost is memory only

    def test_TL102_eval_forward_saves_activations(self):
        f, x = variants("TL102")
        self.assertGreater(f["saved_bytes_peak"], 0)
        self.assertEqual(x["saved_bytes_peak"], 0)
        self.assertTrue(f["signal"]["graph_recorded"])
        self.assertFalse(x["signal"]["graph_recorded"])
        self.assertEqual(f["signal"]["accuracy"], x["signal"]["accuracy"])

    def test_TL103_second_backward_fails(self):
        f, x = variants("TL103")
        self.assertEqual(f["error"]["type"], "RuntimeError")
        self.assertIn("backward through the graph a second time", f["error"]["message"])
        self.assertEqual(f["error"]["iteration"], 2)
        self.assertIsNone(x["error"])
        self.assertEqual(x["iterations_completed"], result("TL103")["iters"])

    def test_TL104_retained_graph_outlives_the_step(self):
        f, x = variants("TL104")
        self.assertGreater(f["saved_bytes_per_iter"][-1], 0)
        self.assertEqual(x["saved_bytes_per_iter"][-1], 0)
        # During the next forward two graphs' activations are alive instead of one.
        self.assertEqual(f["saved_bytes_peak"], 2 * x["saved_bytes_peak"])


class Correctness(unittest.TestCase):
    def test_TL201_gradients_accumulate(self):
        f, x = variants("TL201")
        fg, xg = f["signal"]["grad_norm"], x["signal"]["grad_norm"]
        self.assertEqual(fg[0], xg[0])  # the same first step
        self.assertGreater(fg[-1], 10 * xg[-1])
        self.assertGreater(f["signal"]["loss"][-1], 10 * x["signal"]["loss"][-1])
        self.assertGreater(f["signal"]["weight_error"], 10 * x["signal"]["weight_error"])

    def test_TL202_parameters_do_not_change(self):
        f, x = variants("TL202")
        self.assertEqual(f["signal"]["max_param_change"], 0.0)
        self.assertGreater(x["signal"]["max_param_change"], 0.0)
        self.assertLess(x["signal"]["loss_last"], f["signal"]["loss_last"])

    def test_TL203_training_continues_in_eval_mode(self):
        f, x = variants("TL203")
        n = f["signal"]["iterations"]
        self.assertFalse(f["signal"]["training_flag_at_end"])
        self.assertTrue(x["signal"]["training_flag_at_end"])
        self.assertEqual(f["signal"]["steps_in_eval_mode"], n - 5)  # all after the first evaluation
        self.assertEqual(x["signal"]["steps_in_eval_mode"], 0)
        self.assertEqual(f["signal"]["batchnorm_updates"], 5)
        self.assertEqual(x["signal"]["batchnorm_updates"], n)

    def test_TL212_evaluation_in_train_mode_is_noisy_and_moves_statistics(self):
        f, x = variants("TL212")
        self.assertGreater(f["signal"]["max_accuracy_gap"], 0.0)
        self.assertEqual(x["signal"]["max_accuracy_gap"], 0.0)
        self.assertGreater(f["signal"]["max_loss_gap"], 0.0)
        self.assertEqual(x["signal"]["max_loss_gap"], 0.0)
        self.assertGreater(f["signal"]["max_running_mean_move"], 0.0)
        self.assertEqual(x["signal"]["max_running_mean_move"], 0.0)

    def test_TL214_listed_layers_are_not_registered(self):
        f, x = variants("TL214")
        self.assertEqual(f["signal"]["hidden_weight_change"], 0.0)
        self.assertGreater(x["signal"]["hidden_weight_change"], 0.0)
        self.assertLess(f["signal"]["parameters"], x["signal"]["parameters"])
        self.assertLess(f["signal"]["state_dict_entries"], x["signal"]["state_dict_entries"])
        self.assertEqual(f["signal"]["hidden_dtype_after_to"], "torch.float32")
        self.assertEqual(x["signal"]["hidden_dtype_after_to"], "torch.float64")

    def test_TL215_every_epoch_repeats_the_order(self):
        f, x = variants("TL215")
        self.assertEqual(f["signal"]["distinct_orders"], 1)
        self.assertEqual(x["signal"]["distinct_orders"], x["signal"]["epochs"])
        self.assertEqual(f["signal"]["mean_match_with_first_epoch"], 1.0)
        self.assertLess(x["signal"]["mean_match_with_first_epoch"], 0.1)

    def test_TL216_dropout_stays_on_in_eval_mode(self):
        f, x = variants("TL216")
        self.assertGreater(f["signal"]["max_eval_gap"], 0.0)
        self.assertEqual(x["signal"]["max_eval_gap"], 0.0)
        self.assertLess(f["signal"]["eval_accuracy"], x["signal"]["eval_accuracy"])

    def test_TL217_implicit_dim_normalises_across_the_batch(self):
        f, x = variants("TL217")
        self.assertGreater(f["signal"]["max_tag_sum_error"], 0.1)
        self.assertLess(x["signal"]["max_tag_sum_error"], 1e-4)
        self.assertGreater(f["signal"]["cross_entropy"], 1.5 * x["signal"]["cross_entropy"])

    def test_TL218_needs_a_gpu(self):
        # FSDP needs CUDA; on the CPU the case must run and claim nothing.
        self.assertTrue((caselib.CASES / "TL218" / "NEEDS_GPU").is_file())
        f, x = variants("TL218")
        self.assertEqual(f["error"] is None, x["error"] is None)
        self.assertFalse(result("TL218")["demonstrated"])

    def _scaler_case_on_cpu(self, code):
        # PyTorch's torch.cuda.amp.GradScaler disables itself without CUDA:
        # nothing to observe on the CPU (NEEDS_GPU says what to measure).
        f, x = variants(code)
        self.assertTrue((caselib.CASES / code / "NEEDS_GPU").is_file())
        self.assertFalse(f["notes"]["scaler_enabled"])
        self.assertIsNone(f["error"])
        self.assertIsNone(x["error"])
        self.assertFalse(result(code)["demonstrated"])

    def test_TL204_scaler_disabled_on_cpu(self):
        self._scaler_case_on_cpu("TL204")

    def test_TL205_scaler_disabled_on_cpu(self):
        self._scaler_case_on_cpu("TL205")
        f, x = variants("TL205")
        self.assertEqual(f["signal"]["first_update_norm"], x["signal"]["first_update_norm"])

    def test_TL206_batch_keeps_its_dtype(self):
        f, x = variants("TL206")
        self.assertEqual(f["notes"]["batch_after_to"], "cpu torch.float64")
        self.assertEqual(x["notes"]["batch_after_to"], "cpu torch.float32")
        self.assertEqual(f["error"]["type"], "RuntimeError")
        self.assertEqual(f["error"]["iteration"], 1)
        self.assertIsNone(x["error"])

    def test_TL207_hooks_skipped(self):
        f, x = variants("TL207")
        self.assertEqual(f["signal"]["hook_calls"], 0)
        self.assertEqual(x["signal"]["hook_calls"], x["signal"]["iterations"])

    def test_TL208_softmax_before_cross_entropy_trains_worse(self):
        f, x = variants("TL208")
        self.assertGreater(f["signal"]["cross_entropy"], 10 * x["signal"]["cross_entropy"])
        self.assertLess(f["signal"]["accuracy"], x["signal"]["accuracy"])

    def test_TL209_saturated_sigmoid_blocks_gradients(self):
        f, x = variants("TL209")
        self.assertEqual(f["signal"]["first_grad_norm"], 0.0)
        self.assertGreater(x["signal"]["first_grad_norm"], 0.0)
        self.assertGreater(f["signal"]["bce"], 2 * x["signal"]["bce"])

    def test_TL210_nll_of_probabilities_is_wrong(self):
        f, x = variants("TL210")
        self.assertLessEqual(f["signal"]["reported_loss_last"], 0.0)  # minus a probability
        self.assertGreater(x["signal"]["reported_loss_last"], 0.0)
        self.assertGreater(f["signal"]["cross_entropy"], 10 * x["signal"]["cross_entropy"])

    def test_TL219_discarded_mask_lets_padding_in(self):
        f, x = variants("TL219")
        self.assertGreater(f["signal"]["pad_mass"][-1], 0.1)
        self.assertEqual(x["signal"]["pad_mass"][-1], 0.0)
        # With the mask applied, the padding's content cannot change the output.
        self.assertGreater(f["signal"]["padding_sensitivity"], 1e-3)
        self.assertEqual(x["signal"]["padding_sensitivity"], 0.0)


class Precision(unittest.TestCase):
    def test_TL211_frozen_backbone_keeps_training(self):
        f, x = variants("TL211")
        self.assertGreater(f["signal"]["backbone_change"], 0.0)
        self.assertEqual(x["signal"]["backbone_change"], 0.0)
        self.assertGreater(f["signal"]["backbone_params_with_grad"], 0)
        self.assertEqual(x["signal"]["backbone_params_with_grad"], 0)

    def test_TL213_replicas_drift_when_ddp_is_bypassed(self):
        f, x = variants("TL213")
        self.assertGreater(f["signal"]["max_weight_difference"], 0.0)
        self.assertEqual(x["signal"]["max_weight_difference"], 0.0)
        self.assertEqual(f["signal"]["exit_codes"], [0, 0])
        self.assertEqual(x["signal"]["exit_codes"], [0, 0])

    def test_TL404_minus_1e9_overflows_float16(self):
        f, x = variants("TL404")
        self.assertEqual(f["error"]["type"], "RuntimeError")
        self.assertIn("without overflow", f["error"]["message"])
        self.assertIsNone(x["error"])
        self.assertTrue(x["signal"]["loss_finite"])

    def test_TL401_loss_in_bfloat16_outside_autocast(self):
        f, x = variants("TL401")
        self.assertEqual(f["signal"]["loss_dtype"], "torch.bfloat16")
        self.assertEqual(x["signal"]["loss_dtype"], "torch.float32")
        self.assertGreater(f["signal"]["mean_relative_error"], 100 * x["signal"]["mean_relative_error"])

    def test_TL405_clipping_scaled_gradients_shrinks_updates(self):
        # caselib.EmulatedGradScaler on the CPU: the scale is 65536 throughout.
        f, x = variants("TL405")
        self.assertEqual(f["signal"]["scale"], 65536.0)
        self.assertLess(f["signal"]["median_update_norm"] * 1000, x["signal"]["median_update_norm"])
        self.assertGreater(f["signal"]["final_loss"], 2 * x["signal"]["final_loss"])
        self.assertLess(x["signal"]["final_loss"], x["signal"]["first_loss"])


class Safety(unittest.TestCase):
    def test_TL403_linear_space_logsumexp_overflows(self):
        f, x = variants("TL403")
        self.assertGreater(f["signal"]["nonfinite_steps"], 0)
        self.assertEqual(x["signal"]["nonfinite_steps"], 0)
        self.assertFalse(f["signal"]["weights_finite"])
        self.assertTrue(x["signal"]["weights_finite"])

    def test_TL501_crafted_checkpoint_runs_code(self):
        f, x = variants("TL501")
        self.assertTrue(f["signal"]["code_ran"])
        self.assertEqual(f["signal"]["crafted_checkpoint"], "loaded")
        self.assertFalse(x["signal"]["code_ran"])
        self.assertEqual(x["signal"]["crafted_checkpoint"], "refused (UnpicklingError)")
        self.assertTrue(x["signal"]["own_checkpoint_loaded"])

    def test_TL502_allreduce_every_micro_step(self):
        f, x = variants("TL502")
        self.assertEqual(f["signal"]["allreduce_calls"], 4 * x["signal"]["allreduce_calls"])
        self.assertEqual(x["signal"]["allreduce_calls"], x["signal"]["optimizer_steps"])


class Checkpoint(unittest.TestCase):
    def test_TL504_prefixed_keys_do_not_load(self):
        f, x = variants("TL504")
        self.assertTrue(f["signal"]["strict_load"].startswith("Unexpected key(s)"))
        self.assertEqual(x["signal"]["strict_load"], "loaded")
        self.assertEqual(f["signal"]["keys_loaded"], 0)
        self.assertEqual(x["signal"]["keys_loaded"], x["signal"]["keys_expected"])
        self.assertLess(f["signal"]["loaded_accuracy"], 0.5)
        self.assertGreater(x["signal"]["loaded_accuracy"], 0.9)


class GpuOnly(unittest.TestCase):
    """Speed cases: on the CPU both variants must run; they claim nothing here
    (but for the costs a CPU shows: anomaly mode's overhead is host work)."""

    CPU_SHOWN = {"TL309"}

    def test_TL309_anomaly_mode_slows_every_step(self):
        f, x = variants("TL309")
        self.assertEqual(f["signal"]["loss"], x["signal"]["loss"])
        self.assertGreater(f["median_step_s"], 1.2 * x["median_step_s"])

    def test_speed_cases_run_on_cpu(self):
        for code in caselib.case_codes():
            if not code.startswith("TL3") or code in self.CPU_SHOWN:
                continue
            with self.subTest(code=code):
                self.assertTrue((caselib.CASES / code / "NEEDS_GPU").is_file())
                f, x = variants(code)
                self.assertIsNone(f["error"])
                self.assertIsNone(x["error"])
                self.assertFalse(result(code)["demonstrated"])


class Loader(unittest.TestCase):
    def test_TL308_workers_load_the_same_batches(self):
        f, x = variants("TL308")
        self.assertEqual(f["signal"]["steps"], x["signal"]["steps"])
        self.assertEqual(f["signal"]["mean_loss"], x["signal"]["mean_loss"])


class Committed(unittest.TestCase):
    """validate/results/cpu/ holds what a run on the CPU shows: a fresh run
    must reach the same verdict on every piece of evidence."""

    def test_committed_cpu_results_reproduce(self):
        for code in caselib.case_codes():
            with self.subTest(code=code):
                path = caselib.ROOT / "results" / "cpu" / (code + ".json")
                self.assertTrue(path.is_file(), "%s: run python3 validate/run.py --device cpu" % path)
                committed = json.loads(path.read_text())
                fresh = result(code)
                self.assertEqual(committed["demonstrated"], fresh["demonstrated"])
                self.assertEqual([(r["metric"], r["shows"]) for r in committed["evidence"]],
                                 [(r["metric"], r["shows"]) for r in fresh["evidence"]])


if __name__ == "__main__":
    unittest.main()
