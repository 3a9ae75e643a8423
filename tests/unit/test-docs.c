/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpu-provision.ini(5) against the key table of lib/config/ini.c, both ways. */
#include "unit.h"

#include "base/util.h"
#include "config/ini.h"

#define INI_PAGE FIXTURES "/../../man/gpu-provision.ini.5.scd"

/* A key's entry in the page: "*name* = ..." at the start of a line of its section. */
struct entry {
	char section[32];
	char name[32];
	char def[64]; /* what "Default: *...*" gives in its text, "" if none */
};

/* The default an entry's text gives (its line and the tab-indented ones after it). */
static void entry_default(const char *l, char *def)
{
	const char *end = l, *d = strstr(l, "Default: *");

	while ((end = strchr(end, '\n')) && end[1] == '\t')
		end++;
	def[0] = '\0';
	if (d && (!end || d < end))
		sscanf(d, "Default: *%63[^*]", def);
}

static size_t page_entries(const char *text, struct entry *e, size_t max)
{
	char section[32] = "";
	size_t n = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (sscanf(l, "# SECTION [%31[a-z]]", section) == 1)
			continue;
		if (strncmp(l, "# ", 2) == 0)
			section[0] = '\0';
		if (!section[0] || n == max || sscanf(l, "*%31[a-z_]* =", e[n].name) != 1)
			continue;
		snprintf(e[n].section, sizeof(e[n].section), "%s", section);
		entry_default(l, e[n].def);
		n++;
	}
	return n;
}

/* Every key of the table has its entry under its section, with its default; and no other. */
static void every_ini_key_is_in_the_page(void **state)
{
	const struct gp_ini_key *k;
	struct entry e[32];
	char *text = NULL;
	size_t i, j, n;

	(void)state;
	assert_int_equal(gp_read_file(INI_PAGE, 1 << 20, &text, NULL), 0);
	n = page_entries(text, e, 32);
	for (i = 0; (k = gp_ini_key(i)); i++) {
		for (j = 0; j < n; j++) {
			if (!strcmp(e[j].section, k->section) && !strcmp(e[j].name, k->name))
				break;
		}
		if (j == n)
			fail_msg("[%s] %s is not in gpu-provision.ini(5)", k->section, k->name);
		if (k->def && strcmp(e[j].def, k->def))
			fail_msg("[%s] %s: the page gives default \"%s\", the table \"%s\"",
				 k->section, k->name, e[j].def, k->def);
	}
	if (n != i)
		fail_msg("gpu-provision.ini(5) has %zu keys, the table %zu", n, i);
	/* the host's file: the page names each key it takes */
	for (i = 0; (k = gp_ini_key(i)); i++) {
		const char *host = strstr(text, "# THE HOST'S DEFAULTS");
		char word[48];

		assert_non_null(host);
		snprintf(word, sizeof(word), "*%s*", k->name);
		if (k->host != (strstr(host, word) != NULL))
			fail_msg("%s: gpu-provision.conf %s it, the page says otherwise", k->name,
				 k->host ? "takes" : "refuses");
	}
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_ini_key_is_in_the_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
