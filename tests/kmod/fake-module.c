/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stand-in kernel module for libkmod tests: an ELF object with only a .modinfo
 * section, enough for depmod to index it and for libkmod to find and describe it. It
 * is never loaded. Build with -DMODNAME=nvidia_uvm (and so on).
 */
#define STR2(x) #x
#define STR(x) STR2(x)

static const char modinfo[] __attribute__((section(".modinfo"), used, aligned(1))) =
	"license=Dual MIT/GPL\0"
	"name=" STR(MODNAME) "\0"
	"version=590.48.01\0"
	"vermagic=6.8.12-9-pve SMP preempt mod_unload modversions \0";
