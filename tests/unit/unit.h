/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every unit test includes: cmocka and the C library it leans on. */
#ifndef GP_UNIT_H
#define GP_UNIT_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#endif
