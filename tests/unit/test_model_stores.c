/* Unit tests for where an object is stored (analyzer/model/flow.c,
 * tl_model_stored): the flow sets' part mark; the edges of kind same
 * (bindings, literals, copies, stores under a key, returns) that lead a
 * state dict to a torch.save, and those of kind part (an entry, `.get`,
 * `.items()` re-keyed in a comprehension or a loop) that lead a loaded
 * checkpoint to a load_state_dict; what is computed from the object
 * leads to neither. And the facts' questions on top (`saved`,
 * `load-feeds-state`), where the walks they replaced were wrong. */
#include "helpers.h"

#include "facts/facts.h"
#include "model/model.h"
#include "model/value.h"
#include "rules/checks/checks.h"

static int stored(TlFixture *fx, const char *anchor, const char *text, unsigned what)
{
	return tl_model_stored(&fx->idx, tl_fixture_node_after(fx, anchor, text), what, NULL);
}

static void test_stores_part_mark(void **state)
{
	(void)state;
	TlValPool p;
	tl_val_pool_init(&p);
	uint32_t a = tl_val_flow_one(&p, 5), b = tl_val_flow_one(&p, 3);
	uint32_t pa = tl_val_flow_part(a);
	assert_int_not_equal(pa, a);
	assert_false(tl_val_flow_same(&p, a, pa)); /* the mark takes part in equality */
	const uint32_t *ids;
	uint32_t n;
	assert_true(tl_val_flow_nodes(&p, pa, &ids, &n));
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], 5);
	/* a union keeps either's mark, over both sets' nodes */
	uint32_t u = tl_val_flow_union(&p, b, pa);
	assert_true(u & TL_VAL_FLOW_PART);
	assert_true(tl_val_flow_nodes(&p, u, &ids, &n));
	assert_int_equal(n, 2);
	assert_int_equal(tl_val_flow_union(&p, a, pa), pa);
	/* none and the top carry no mark */
	assert_int_equal(tl_val_flow_part(0), 0);
	assert_int_equal(tl_val_flow_part(TL_VAL_FLOW_TOP), TL_VAL_FLOW_TOP);
	tl_val_pool_release(&p);
}

static void test_stores_saved(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import copy\n"
		"import torch\n"
		"def save(model, ema, opt, path):\n"
		"    torch.save(model.state_dict(), path)\n"
		"    sd = ema.state_dict()\n"
		"    ckpt = {\"model\": sd, \"epoch\": 1}\n"
		"    torch.save(ckpt, path)\n"
		"    best = copy.deepcopy(opt.state_dict())\n"
		"    torch.save(obj=[best], f=path)\n"
		"    c2 = {}\n"
		"    c2[\"enc\"] = model.encoder.state_dict()\n"
		"    torch.save(c2, path)\n"
		"def strip(model, path):\n"
		"    full = model.state_dict()\n"
		"    new = {}\n"
		"    for k, v in full.items():\n"
		"        new[k[7:]] = v\n"
		"    torch.save(new, path)\n"
		"    torch.save({k[7:]: v for k, v in model.head.state_dict().items()}, path)\n"
		"    torch.save(model.body.state_dict()[\"w\"], path)\n"
		"    torch.save(convert(model.tail.state_dict()), path)\n"
		"    kept = model.neck.state_dict()\n");
	assert_int_equal(stored(fx, "torch.save(", "model.state_dict()", TL_MODEL_SAVED), 1);
	assert_int_equal(stored(fx, "sd = ", "ema.state_dict()", TL_MODEL_SAVED), 1);
	assert_int_equal(stored(fx, "copy.deepcopy(", "opt.state_dict()", TL_MODEL_SAVED), 1);
	assert_int_equal(stored(fx, "c2[\"enc\"] = ", "model.encoder.state_dict()", TL_MODEL_SAVED), 1);
	/* keys rewritten before the save: the object saved is another */
	assert_int_equal(stored(fx, "full = ", "model.state_dict()", TL_MODEL_SAVED), 0);
	assert_int_equal(stored(fx, "v in ", "model.head.state_dict()", TL_MODEL_SAVED), 0);
	/* one entry of it, or what a function computes of it */
	assert_int_equal(stored(fx, "torch.save(", "model.body.state_dict()", TL_MODEL_SAVED), 0);
	assert_int_equal(stored(fx, "convert(", "model.tail.state_dict()", TL_MODEL_SAVED), 0);
	assert_int_equal(stored(fx, "kept = ", "model.neck.state_dict()", TL_MODEL_SAVED), 0);
	/* a save is no load */
	assert_int_equal(stored(fx, "torch.save(", "model.state_dict()", TL_MODEL_LOADED), 0);
	/* the walk's answers it replaced: the re-keyed loop was never saved by
	 * it either; the store under a key was */
	assert_true(tl_check_saved(&fx->idx, tl_fixture_node_after(fx, "c2[\"enc\"] = ", "model.encoder.state_dict()")));
	assert_false(tl_check_saved(&fx->idx, tl_fixture_node_after(fx, "full = ", "model.state_dict()")));
	tl_fixture_free(fx);
}

static void test_stores_loaded(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def read(path):\n"
		"    return torch.load(path)[\"model\"]\n"
		"def resume(model, opt, sched, path, fine):\n"
		"    ckpt = torch.load(path)\n"
		"    model.load_state_dict({k[7:]: v for k, v in ckpt[\"model\"].items()})\n"
		"    c2 = torch.load(path)\n"
		"    opt.load_state_dict(c2.get(\"opt\") if fine else c2)\n"
		"    c3 = torch.load(path)\n"
		"    new = {}\n"
		"    for k, v in c3.items():\n"
		"        new[k.replace(\"module.\", \"\")] = v\n"
		"    model.load_state_dict(state_dict=new)\n"
		"    model.load_state_dict(read(path))\n"
		"    c4 = torch.load(path)\n"
		"    model.load_state_dict(c4[\"w\"] * 2)\n"
		"    c5 = torch.load(path)\n"
		"    sched.load_state_dict(c5)\n"
		"    c6 = torch.load(path)\n"
		"    print(c6)\n");
	assert_int_equal(stored(fx, "ckpt = ", "torch.load(path)", TL_MODEL_LOADED), 1);
	assert_int_equal(stored(fx, "c2 = ", "torch.load(path)", TL_MODEL_LOADED), 1);
	assert_int_equal(stored(fx, "c3 = ", "torch.load(path)", TL_MODEL_LOADED), 1);
	/* a function's return to the call that the load reads */
	assert_int_equal(stored(fx, "return ", "torch.load(path)", TL_MODEL_LOADED), 1);
	/* computed from it, or printed */
	assert_int_equal(stored(fx, "c4 = ", "torch.load(path)", TL_MODEL_LOADED), 0);
	assert_int_equal(stored(fx, "c6 = ", "torch.load(path)", TL_MODEL_LOADED), 0);
	/* the store is a load of everything, the scheduler's included: which
	 * state may hold tensors is the facts' */
	TlIntArray calls;
	tl_array_init(&calls);
	assert_int_equal(tl_model_stored(&fx->idx, tl_fixture_node_after(fx, "c5 = ", "torch.load(path)"), TL_MODEL_LOADED,
					 &calls),
			 1);
	assert_int_equal(calls.size, 1);
	assert_string_equal(fx->idx.calls.items[calls.items[0]].recv_name, "sched");
	tl_array_release(&calls);
	const TlIndex *idx = &fx->idx;
	assert_false(tl_check_load_feeds_state(idx, tl_fixture_node_after(fx, "c5 = ", "torch.load(path)")));
	/* re-keyed in a loop (the walk followed only a comprehension) */
	assert_true(tl_check_load_feeds_state(idx, tl_fixture_node_after(fx, "c3 = ", "torch.load(path)")));
	assert_true(tl_check_load_feeds_state(idx, tl_fixture_node_after(fx, "ckpt = ", "torch.load(path)")));
	assert_false(tl_check_load_feeds_state(idx, tl_fixture_node_after(fx, "c4 = ", "torch.load(path)")));
	tl_fixture_free(fx);
}

/* Where the first differential over the ecosystem found the model wrong:
 * a key stored into a state dict the model knows no container of; a
 * store under a computed key of an entry (`ckpt["optim"][name] = ...`);
 * a dict spread into the next literal (`{**obj, "k": ...}`); a name None
 * on one path joined with what another stored (`if sd is None: sd =
 * self.state_dict()`, of a method that raises for subclasses to say). */
static void test_stores_fixes(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"def a(model, path, masks):\n"
		"    sd = model.state_dict()\n"
		"    sd[\"mask_values\"] = masks\n"
		"    torch.save(sd, path)\n"
		"def b(optimizer, path):\n"
		"    ckpt = {\"meta\": 1}\n"
		"    ckpt[\"optimizer\"] = {}\n"
		"    for name, optim in optimizer.items():\n"
		"        ckpt[\"optimizer\"][name] = optim.state_dict()\n"
		"    torch.save(ckpt, path)\n"
		"def c(model, sched, path, scaler):\n"
		"    obj = dict(model=model.state_dict())\n"
		"    if sched:\n"
		"        obj = {**obj, \"sched\": sched.state_dict()}\n"
		"    obj = {**obj, \"scaler\": scaler.state_dict()}\n"
		"    torch.save(obj, path)\n"
		"class Head(torch.nn.Module):\n"
		"    def state_dict(self):\n"
		"        raise NotImplementedError\n"
		"    def save(self, path, **kwargs):\n"
		"        sd = kwargs.get(\"state_dict\")\n"
		"        if sd is None:\n"
		"            sd = self.state_dict()\n"
		"        torch.save(sd, path)\n");
	assert_int_equal(stored(fx, "sd = ", "model.state_dict()", TL_MODEL_SAVED), 1);
	assert_int_equal(stored(fx, "[name] = ", "optim.state_dict()", TL_MODEL_SAVED), 1);
	assert_int_equal(stored(fx, "\"sched\": ", "sched.state_dict()", TL_MODEL_SAVED), 1);
	assert_int_equal(stored(fx, "\"scaler\": ", "scaler.state_dict()", TL_MODEL_SAVED), 1);
	/* a subclass's state dict: the model's value of the call is None */
	assert_int_equal(stored(fx, "            sd = ", "self.state_dict()", TL_MODEL_SAVED), 1);
	tl_fixture_free(fx);
}

/* `saved` without a torch.save in the file: no sink, so no model is built
 * (its first question would interpret the whole module); with one, the
 * model's answer. */
static void test_stores_saved_needs_save_call(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import torch\n"
		"class Net(torch.nn.Module):\n"
		"    def export(self):\n"
		"        return {\"model\": self.state_dict()}\n"
		"def keep(model):\n"
		"    ckpt = model.state_dict()\n"
		"    return ckpt\n");
	assert_false(tl_model_calls_store(&fx->idx, TL_MODEL_SAVED));
	assert_false(tl_check_saved(&fx->idx, tl_fixture_node_after(fx, "ckpt = ", "model.state_dict()")));
	assert_false(tl_check_saved(&fx->idx, tl_fixture_node_after(fx, "\"model\": ", "self.state_dict()")));
	assert_null(fx->idx.model);
	tl_fixture_free(fx);
	fx = tl_fixture_new(
		"import torch\n"
		"from torch import save as write\n"
		"def keep(model, path):\n"
		"    ckpt = model.state_dict()\n"
		"    write(ckpt, path)\n");
	assert_true(tl_model_calls_store(&fx->idx, TL_MODEL_SAVED));
	assert_false(tl_model_calls_store(&fx->idx, TL_MODEL_LOADED));
	assert_true(tl_check_saved(&fx->idx, tl_fixture_node_after(fx, "ckpt = ", "model.state_dict()")));
	assert_non_null(fx->idx.model);
	tl_fixture_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stores_part_mark),
		cmocka_unit_test(test_stores_saved),
		cmocka_unit_test(test_stores_loaded),
		cmocka_unit_test(test_stores_fixes),
		cmocka_unit_test(test_stores_saved_needs_save_call),
	};
	return cmocka_run_group_tests_name("model stores", tests, NULL, NULL);
}
