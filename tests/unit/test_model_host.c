/* Unit tests for host copies of device data (analyzer/model/host.c, read
 * by tl_check_host_derived): a copy made in this round of the innermost
 * loop, not in an earlier round nor before the loop; through a
 * comprehension's variable, a list a copy is appended to, numpy and
 * builtins; a helper that copies its parameter, by what each call passes;
 * a copy moved back to the device is device data again; a global copied
 * at module level is no copy of a function's run; an unknown function's
 * result and a host batch's `.cpu()` are none. */
#include "helpers.h"

#include "facts/facts.h"
#include "rules/checks/checks.h"

static void test_host_derived(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import numpy as np\n"
		"import torch\n"
		"import torch.nn as nn\n"
		"model = nn.Linear(4, 2).cuda()\n"
		"early = model(x0).cpu().numpy()\n"
		"for x in loader:\n"
		"    out = model(x.cuda())\n"
		"    p = out.argmax(1).cpu().numpy()\n"
		"    q = np.clip(p * 2, 0, 1)\n"
		"    lst = out.tolist()\n"
		"    obs = env.step(p)\n"
		"    xh = x.cpu()\n"
		"    chk(torch.from_numpy(q))\n"
		"    chk(lst)\n"
		"    chk(obs)\n"
		"    chk(xh)\n"
		"    chk(early)\n"
		"    late = out.cpu()\n");
	const TlIndex *idx = &fx->idx;
	assert_true(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(torch.from_numpy(q))")));
	assert_true(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(lst)")));
	/* An unknown function's result is new data; a host batch's .cpu() is
	 * no device copy; a copy made before the loop is not this iteration's. */
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(obs)")));
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(xh)")));
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(early)")));
	tl_fixture_free(fx);
}

static void test_host_rounds(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import numpy as np\n"
		"import torch\n"
		"import torch.nn as nn\n"
		"model = nn.Linear(4, 2).cuda()\n"
		"def train(loader, opt, k):\n"
		"    prev = None\n"
		"    for x in loader:\n"
		"        chk(prev)\n"
		"        out = model(x.cuda())\n"
		"        rows = []\n"
		"        for j in range(k):\n"
		"            rows.append(out[j].detach().cpu().numpy())\n"
		"            chk(np.stack(rows))\n"
		"        late = out.cpu()\n"
		"        for j in range(k):\n"
		"            chk(late)\n"
		"        chk(np.stack(rows))\n"
		"        chk([float(v) for v in out.sum(1).tolist()])\n"
		"        back = late.cuda()\n"
		"        chk(back)\n"
		"        prev = late\n"
		"        opt.step()\n");
	const TlIndex *idx = &fx->idx;
	/* last round's copy; a copy made in the outer loop's round, read in
	 * an inner loop; a copy moved back to the device */
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(prev)")));
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(late)")));
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(back)")));
	/* copies appended in the inner loop, read there and after it; the
	 * variable of a comprehension over a copy */
	TSNode stack = tl_fixture_node(fx, "chk(np.stack(rows))", 0);
	assert_true(tl_check_host_derived(idx, ts_node_named_child(ts_node_child_by_field_name(stack, "arguments", 9), 0)));
	stack = tl_fixture_node(fx, "chk(np.stack(rows))", 1);
	assert_true(tl_check_host_derived(idx, ts_node_named_child(ts_node_child_by_field_name(stack, "arguments", 9), 0)));
	assert_true(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk([float(v) for v in out.sum(1).tolist()])")));
	tl_fixture_free(fx);
}

static void test_host_helpers(void **state)
{
	(void)state;
	TlFixture *fx = tl_fixture_new(
		"import numpy as np\n"
		"import torch\n"
		"import torch.nn as nn\n"
		"model = nn.Linear(4, 2).cuda()\n"
		"table = model(torch.ones(4).cuda()).cpu()\n"
		"def to_numpy(t):\n"
		"    return t.detach().cpu().numpy()\n"
		"def again(t):\n"
		"    return to_numpy(t)\n"
		"def train(loader, opt):\n"
		"    for x, y in loader:\n"
		"        out = model(x.cuda())\n"
		"        chk(to_numpy(out))\n"
		"        chk(to_numpy(x))\n"
		"        chk(again(out))\n"
		"        chk(table)\n"
		"        chk(tuple(t.cuda() for t in (o.cpu() for o in out)))\n"
		"        opt.step()\n");
	const TlIndex *idx = &fx->idx;
	/* a helper that copies its parameter: given a device tensor, through
	 * a helper that passes its own parameter on */
	assert_true(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(to_numpy(out))")));
	assert_true(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(again(out))")));
	/* given a host batch; a copy the module's code made */
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(to_numpy(x))")));
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(table)")));
	/* moved back to the device, element by element */
	assert_false(tl_check_host_derived(idx, tl_fixture_arg0(fx, "chk(tuple(t.cuda() for t in (o.cpu() for o in out)))")));
	TSNode t = tl_fixture_node(fx, "t.cuda()", 0);
	assert_true(tl_check_host_derived(idx, ts_node_child_by_field_name(ts_node_child_by_field_name(t, "function", 8), "object", 6)));
	tl_fixture_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_derived),
		cmocka_unit_test(test_host_rounds),
		cmocka_unit_test(test_host_helpers),
	};
	return cmocka_run_group_tests_name("model host copies", tests, NULL, NULL);
}
