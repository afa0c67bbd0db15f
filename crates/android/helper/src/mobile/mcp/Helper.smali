# mobile-mcp's on-device helper: started from the adb shell with
#   env CLASSPATH=/data/local/tmp/mobilemcp-helper-HASH.dex app_process / mobile.mcp.Helper VERB [ARG]
# it runs as the shell user (uid 2000, package com.android.shell), says one line on stdout
# and exits. Written here in smali (assembled by scripts/build-helper.sh); no third-party code.
#
# Verbs (text travels as base64 of its UTF-8 bytes, so any text is one shell word):
#   version          -> "mobile-mcp-helper 1"
#   clip-get         -> "clip:BASE64" or "clip-none" (no clip, or a clip with no text)
#   clip-set BASE64  -> "ok"   (a plain-text clip; the SystemUI overlay suppressed on 13+)
#   clip-clear       -> "ok"   (clearPrimaryClip where it exists, else an empty clip)
# Any failure: "error: EXCEPTION" on stdout and exit status 1.
#
# The clipboard service is reached as scrcpy's server does (ServiceManager.getService
# "clipboard", IClipboard.Stub.asInterface, reflection on IClipboard). Its methods grew
# parameters across releases (pkg; pkg, userId; pkg, attributionTag, userId; … deviceId),
# so the arguments are built from the method's parameter types: the first String is the
# calling package "com.android.shell", later Strings null (attribution tag), every int 0
# (user 0, the default device), a ClipData parameter the clip.

.class public final Lmobile/mcp/Helper;
.super Ljava/lang/Object;
.source "Helper.smali"

.method public static main([Ljava/lang/String;)V
    .registers 6
    # p0 = args
    :try_start
    invoke-static {p0}, Lmobile/mcp/Helper;->run([Ljava/lang/String;)Ljava/lang/String;
    move-result-object v0
    sget-object v1, Ljava/lang/System;->out:Ljava/io/PrintStream;
    invoke-virtual {v1, v0}, Ljava/io/PrintStream;->println(Ljava/lang/String;)V
    invoke-virtual {v1}, Ljava/io/PrintStream;->flush()V
    :try_end
    .catch Ljava/lang/Throwable; {:try_start .. :try_end} :failed
    const/4 v0, 0x0
    invoke-static {v0}, Ljava/lang/System;->exit(I)V
    return-void

    :failed
    move-exception v0
    instance-of v1, v0, Ljava/lang/reflect/InvocationTargetException;
    if-eqz v1, :say
    check-cast v0, Ljava/lang/reflect/InvocationTargetException;
    invoke-virtual {v0}, Ljava/lang/reflect/InvocationTargetException;->getCause()Ljava/lang/Throwable;
    move-result-object v0
    :say
    new-instance v1, Ljava/lang/StringBuilder;
    invoke-direct {v1}, Ljava/lang/StringBuilder;-><init>()V
    const-string v2, "error: "
    invoke-virtual {v1, v2}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-static {v0}, Ljava/lang/String;->valueOf(Ljava/lang/Object;)Ljava/lang/String;
    move-result-object v2
    invoke-virtual {v1, v2}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v1}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v1
    sget-object v2, Ljava/lang/System;->out:Ljava/io/PrintStream;
    invoke-virtual {v2, v1}, Ljava/io/PrintStream;->println(Ljava/lang/String;)V
    invoke-virtual {v2}, Ljava/io/PrintStream;->flush()V
    const/4 v0, 0x1
    invoke-static {v0}, Ljava/lang/System;->exit(I)V
    return-void
.end method

# Dispatches on the verb; returns the line to print. Throws on a bad verb or a failure.
.method private static run([Ljava/lang/String;)Ljava/lang/String;
    .registers 6
    # p0 = args
    array-length v0, p0
    if-gtz v0, :has_verb
    new-instance v0, Ljava/lang/IllegalArgumentException;
    const-string v1, "usage: mobile.mcp.Helper version|clip-get|clip-set BASE64|clip-clear"
    invoke-direct {v0, v1}, Ljava/lang/IllegalArgumentException;-><init>(Ljava/lang/String;)V
    throw v0

    :has_verb
    const/4 v0, 0x0
    aget-object v0, p0, v0

    const-string v1, "version"
    invoke-virtual {v1, v0}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v1
    if-eqz v1, :not_version
    const-string v0, "mobile-mcp-helper 1"
    return-object v0

    :not_version
    const-string v1, "clip-get"
    invoke-virtual {v1, v0}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v1
    if-eqz v1, :not_get
    invoke-static {}, Lmobile/mcp/Helper;->clipGet()Ljava/lang/String;
    move-result-object v0
    return-object v0

    :not_get
    const-string v1, "clip-clear"
    invoke-virtual {v1, v0}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v1
    if-eqz v1, :not_clear
    invoke-static {}, Lmobile/mcp/Helper;->clipClear()V
    const-string v0, "ok"
    return-object v0

    :not_clear
    const-string v1, "clip-set"
    invoke-virtual {v1, v0}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v1
    if-eqz v1, :unknown
    array-length v1, p0
    const/4 v2, 0x2
    if-ne v1, v2, :unknown
    const/4 v1, 0x1
    aget-object v1, p0, v1
    invoke-static {v1}, Lmobile/mcp/Helper;->decode(Ljava/lang/String;)Ljava/lang/String;
    move-result-object v1
    invoke-static {v1}, Lmobile/mcp/Helper;->clipSet(Ljava/lang/String;)V
    const-string v0, "ok"
    return-object v0

    :unknown
    new-instance v1, Ljava/lang/IllegalArgumentException;
    const-string v2, "unknown verb or wrong arguments: "
    invoke-virtual {v2, v0}, Ljava/lang/String;->concat(Ljava/lang/String;)Ljava/lang/String;
    move-result-object v2
    invoke-direct {v1, v2}, Ljava/lang/IllegalArgumentException;-><init>(Ljava/lang/String;)V
    throw v1
.end method

# base64 (no line breaks) of UTF-8 -> the text.
.method private static decode(Ljava/lang/String;)Ljava/lang/String;
    .registers 4
    const/4 v0, 0x2
    invoke-static {p0, v0}, Landroid/util/Base64;->decode(Ljava/lang/String;I)[B
    move-result-object v0
    new-instance v1, Ljava/lang/String;
    const-string v2, "UTF-8"
    invoke-direct {v1, v0, v2}, Ljava/lang/String;-><init>([BLjava/lang/String;)V
    return-object v1
.end method

# The IClipboard proxy of the "clipboard" service.
.method private static service()Ljava/lang/Object;
    .registers 8
    const-string v0, "android.os.ServiceManager"
    invoke-static {v0}, Ljava/lang/Class;->forName(Ljava/lang/String;)Ljava/lang/Class;
    move-result-object v0
    const/4 v1, 0x1
    new-array v2, v1, [Ljava/lang/Class;
    const/4 v3, 0x0
    const-class v4, Ljava/lang/String;
    aput-object v4, v2, v3
    const-string v4, "getService"
    invoke-virtual {v0, v4, v2}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v0
    new-array v2, v1, [Ljava/lang/Object;
    const-string v4, "clipboard"
    aput-object v4, v2, v3
    const/4 v4, 0x0
    invoke-virtual {v0, v4, v2}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v5
    if-nez v5, :found
    new-instance v0, Ljava/lang/IllegalStateException;
    const-string v1, "no clipboard service"
    invoke-direct {v0, v1}, Ljava/lang/IllegalStateException;-><init>(Ljava/lang/String;)V
    throw v0

    :found
    const-string v0, "android.content.IClipboard$Stub"
    invoke-static {v0}, Ljava/lang/Class;->forName(Ljava/lang/String;)Ljava/lang/Class;
    move-result-object v0
    new-array v2, v1, [Ljava/lang/Class;
    const-class v6, Landroid/os/IBinder;
    aput-object v6, v2, v3
    const-string v6, "asInterface"
    invoke-virtual {v0, v6, v2}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v0
    new-array v2, v1, [Ljava/lang/Object;
    aput-object v5, v2, v3
    invoke-virtual {v0, v4, v2}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v0
    return-object v0
.end method

# The public method of `target` named `name` (the one IClipboard has on this release), or null.
.method private static method(Ljava/lang/Object;Ljava/lang/String;)Ljava/lang/reflect/Method;
    .registers 7
    # p0 = target, p1 = name
    invoke-virtual {p0}, Ljava/lang/Object;->getClass()Ljava/lang/Class;
    move-result-object v0
    invoke-virtual {v0}, Ljava/lang/Class;->getMethods()[Ljava/lang/reflect/Method;
    move-result-object v0
    array-length v1, v0
    const/4 v2, 0x0
    :loop
    if-ge v2, v1, :none
    aget-object v3, v0, v2
    invoke-virtual {v3}, Ljava/lang/reflect/Method;->getName()Ljava/lang/String;
    move-result-object v4
    invoke-virtual {p1, v4}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v4
    if-eqz v4, :next
    return-object v3
    :next
    add-int/lit8 v2, v2, 0x1
    goto :loop
    :none
    const/4 v0, 0x0
    return-object v0
.end method

# Calls `m` on `target` with arguments built from its parameter types (see the top).
.method private static call(Ljava/lang/Object;Ljava/lang/reflect/Method;Landroid/content/ClipData;)Ljava/lang/Object;
    .registers 11
    # p0 = target, p1 = method, p2 = clip (or null)
    invoke-virtual {p1}, Ljava/lang/reflect/Method;->getParameterTypes()[Ljava/lang/Class;
    move-result-object v0
    array-length v1, v0
    new-array v2, v1, [Ljava/lang/Object;
    const/4 v3, 0x0
    # v4 = whether the package was given yet
    const/4 v4, 0x0
    :loop
    if-ge v3, v1, :invoke
    aget-object v5, v0, v3
    const-class v6, Ljava/lang/String;
    if-ne v5, v6, :not_string
    if-nez v4, :next
    const-string v6, "com.android.shell"
    aput-object v6, v2, v3
    const/4 v4, 0x1
    goto :next
    :not_string
    sget-object v6, Ljava/lang/Integer;->TYPE:Ljava/lang/Class;
    if-ne v5, v6, :not_int
    const/4 v6, 0x0
    invoke-static {v6}, Ljava/lang/Integer;->valueOf(I)Ljava/lang/Integer;
    move-result-object v6
    aput-object v6, v2, v3
    goto :next
    :not_int
    const-class v6, Landroid/content/ClipData;
    if-ne v5, v6, :next
    aput-object p2, v2, v3
    :next
    add-int/lit8 v3, v3, 0x1
    goto :loop
    :invoke
    invoke-virtual {p1, p0, v2}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v0
    return-object v0
.end method

.method private static clipGet()Ljava/lang/String;
    .registers 5
    invoke-static {}, Lmobile/mcp/Helper;->service()Ljava/lang/Object;
    move-result-object v0
    const-string v1, "getPrimaryClip"
    invoke-static {v0, v1}, Lmobile/mcp/Helper;->method(Ljava/lang/Object;Ljava/lang/String;)Ljava/lang/reflect/Method;
    move-result-object v1
    if-nez v1, :has_method
    new-instance v0, Ljava/lang/NoSuchMethodException;
    const-string v1, "IClipboard.getPrimaryClip"
    invoke-direct {v0, v1}, Ljava/lang/NoSuchMethodException;-><init>(Ljava/lang/String;)V
    throw v0
    :has_method
    const/4 v2, 0x0
    invoke-static {v0, v1, v2}, Lmobile/mcp/Helper;->call(Ljava/lang/Object;Ljava/lang/reflect/Method;Landroid/content/ClipData;)Ljava/lang/Object;
    move-result-object v0
    if-eqz v0, :none
    check-cast v0, Landroid/content/ClipData;
    invoke-virtual {v0}, Landroid/content/ClipData;->getItemCount()I
    move-result v1
    if-eqz v1, :none
    const/4 v1, 0x0
    invoke-virtual {v0, v1}, Landroid/content/ClipData;->getItemAt(I)Landroid/content/ClipData$Item;
    move-result-object v0
    invoke-virtual {v0}, Landroid/content/ClipData$Item;->getText()Ljava/lang/CharSequence;
    move-result-object v0
    if-eqz v0, :none
    invoke-interface {v0}, Ljava/lang/CharSequence;->toString()Ljava/lang/String;
    move-result-object v0
    const-string v1, "UTF-8"
    invoke-virtual {v0, v1}, Ljava/lang/String;->getBytes(Ljava/lang/String;)[B
    move-result-object v0
    const/4 v1, 0x2
    invoke-static {v0, v1}, Landroid/util/Base64;->encodeToString([BI)Ljava/lang/String;
    move-result-object v0
    const-string v1, "clip:"
    invoke-virtual {v1, v0}, Ljava/lang/String;->concat(Ljava/lang/String;)Ljava/lang/String;
    move-result-object v0
    return-object v0
    :none
    const-string v0, "clip-none"
    return-object v0
.end method

# Sets a plain-text clip with the overlay-suppressing extra SystemUI honours for the shell.
.method private static clipSet(Ljava/lang/String;)V
    .registers 7
    # p0 = text
    const/4 v0, 0x0
    invoke-static {v0, p0}, Landroid/content/ClipData;->newPlainText(Ljava/lang/CharSequence;Ljava/lang/CharSequence;)Landroid/content/ClipData;
    move-result-object v0
    new-instance v1, Landroid/os/PersistableBundle;
    invoke-direct {v1}, Landroid/os/PersistableBundle;-><init>()V
    const-string v2, "com.android.systemui.SUPPRESS_CLIPBOARD_OVERLAY"
    const/4 v3, 0x1
    invoke-virtual {v1, v2, v3}, Landroid/os/PersistableBundle;->putBoolean(Ljava/lang/String;Z)V
    invoke-virtual {v0}, Landroid/content/ClipData;->getDescription()Landroid/content/ClipDescription;
    move-result-object v2
    invoke-virtual {v2, v1}, Landroid/content/ClipDescription;->setExtras(Landroid/os/PersistableBundle;)V
    invoke-static {}, Lmobile/mcp/Helper;->service()Ljava/lang/Object;
    move-result-object v1
    const-string v2, "setPrimaryClip"
    invoke-static {v1, v2}, Lmobile/mcp/Helper;->method(Ljava/lang/Object;Ljava/lang/String;)Ljava/lang/reflect/Method;
    move-result-object v2
    if-nez v2, :has_method
    new-instance v0, Ljava/lang/NoSuchMethodException;
    const-string v1, "IClipboard.setPrimaryClip"
    invoke-direct {v0, v1}, Ljava/lang/NoSuchMethodException;-><init>(Ljava/lang/String;)V
    throw v0
    :has_method
    invoke-static {v1, v2, v0}, Lmobile/mcp/Helper;->call(Ljava/lang/Object;Ljava/lang/reflect/Method;Landroid/content/ClipData;)Ljava/lang/Object;
    return-void
.end method

# clearPrimaryClip (Android 9+), or an empty clip where the service has none.
.method private static clipClear()V
    .registers 4
    invoke-static {}, Lmobile/mcp/Helper;->service()Ljava/lang/Object;
    move-result-object v0
    const-string v1, "clearPrimaryClip"
    invoke-static {v0, v1}, Lmobile/mcp/Helper;->method(Ljava/lang/Object;Ljava/lang/String;)Ljava/lang/reflect/Method;
    move-result-object v1
    if-nez v1, :has_method
    const-string v0, ""
    invoke-static {v0}, Lmobile/mcp/Helper;->clipSet(Ljava/lang/String;)V
    return-void
    :has_method
    const/4 v2, 0x0
    invoke-static {v0, v1, v2}, Lmobile/mcp/Helper;->call(Ljava/lang/Object;Ljava/lang/reflect/Method;Landroid/content/ClipData;)Ljava/lang/Object;
    return-void
.end method
