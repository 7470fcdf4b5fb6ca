package preprocess

import "strings"

// detectLangs are the languages DetectLanguage tells apart, by their
// function words; the index of a language is its bit in a functionWords
// mask. Each list holds the language's most frequent function words of two
// runes or more (articles, prepositions, conjunctions, pronouns, auxiliary
// verbs): words shared by related languages are listed in each, and the
// words only one of them uses decide between them.
var detectLangs = [...]struct {
	lang  Language
	words string
}{
	{English, "the of and to in is that for it as with was on are be by this from or have an not at which but you your can if will all their has they we more one there been these when would other its than may should must into also only such each then how what where who about any some does do were his her he she our them those no"},
	{French, "le la les de des du et est un une que qui dans en pour pas sur au aux par ce cette ces il elle sont avec plus ou vous nous son sa ses être peut fait si mais comme tout leur lui été ont une votre"},
	{Spanish, "el la los las de del que en un una es por para con no se lo al su sus como más pero este esta estos puede ser son si está hay sin sobre también entre cuando todo muy ya usted"},
	{Russian, "и в не на что с по для это как или если из от к при быть также может все будет этот эта эти его их был была было он она они мы вы так но же только уже"},
	{Swedish, "och att det som en är på för med av till den inte har de om ett kan men eller när så från vid ska skall detta dessa alla också mycket hur vad sin sina vara finns måste efter under än"},
	{Norwegian, "og at det som en er på for med av til den ikke har de om et kan men eller når så fra ved skal dette disse alle også hvis hvordan hva sin sine være finnes må etter under enn mellom ble blir bli noe noen kun uten jeg deg meg seg vil ut nå opp vår våre henne slik gjennom igjen gjøre"},
	{Hungarian, "az és hogy nem is egy van de meg ha csak mint el ki be fel már vagy ez azt ezt volt lesz kell lehet minden amely amelyek nagyon még után által szerint között pedig mert"},
	{German, "der die das und ist nicht ein eine einen einem einer den dem des zu mit auf für von im sich auch es wird werden wenn oder bei als wie sind kann können nur noch aus dass diese dieser dieses sie wir ich an nach über zum zur durch hat haben war muss sollte soll alle mehr vor um aber so"},
	{Dutch, "de het een van en is dat op te in voor met zijn niet aan er ook als bij door om wordt worden kan kunnen deze dit die uit naar hebben heeft maar of wat wanneer uw je moet zal geen nog al dan zo meer tot"},
	{Italian, "il la le di che del della dei delle un una per con si sono da in al alla gli lo ma anche più questo questa può essere se nel nella ha tra sul quando tutti"},
	{Portuguese, "de da do das dos que em um uma para com não se os as no na nos nas por mais como ao pelo pela seu sua ser são está pode também quando ou este esta isso você foi tem entre sobre"},
	{Catalan, "el la els les de del que en un una és per amb no es al als dels com més però aquest aquesta pot ser són si està també quan hi ho seu seva sobre entre tots pel"},
	{Romanian, "și în de la cu este că nu pe un să se ale al lui care din pentru sau dacă mai sunt acest această poate fi ca prin fost fie vor dar ce"},
	{Danish, "og at det som en er på for med af til den ikke har de om et kan men eller når så fra ved skal dette disse alle også hvis hvordan hvad sin sine være findes må efter under mellem blev bliver blive noget nogle kun uden jeg dig mig sig vil ud nu op vores hende sådan gennem igen der gøre al"},
	{Finnish, "ja on ei se että tai kun jos ovat oli olla voi myös joka jotka mutta niin kuin tämä nämä sen siitä sitä ne hän me te mitä mikä kanssa vain sekä ole eikä jo vielä"},
	{Polish, "na nie do się to że jest jak po od za jako lub oraz dla ale co tak przez być może są przy tylko ten ta te tego które który która jego ich czy już bez gdy jeśli"},
	{Czech, "se na je že to do pro jako by ale jsou nebo podle při jeho které který která tak jak už být může také není za od po bez když pokud jsem jejich tento tato toto"},
	{Turkish, "ve bir bu da de için ile olan olarak gibi daha çok en ne yok ama veya ise her kadar sonra önce göre değil şekilde şu"},
	{Indonesian, "yang dan di ini itu dengan untuk dari dalam tidak akan pada ke adalah atau juga oleh ada dapat bisa karena jika anda kami kita mereka sebagai telah sudah harus lebih seperti saat"},
	{Vietnamese, "của và là các có được cho không này một những trong với để khi người thì đã sẽ từ hoặc nếu cũng như bạn đó trên về theo bằng"},
	{Ukrainian, "і та не на що з в у для це як або якщо до від при бути також може всі буде цей ця ці його їх був була було він вона вони ми ви так але же тільки вже"},
	{Serbian, "и у на да је се за од са не или ако који која које као што ће из по до при бити може све овај ова ово његов њихов били јер али само већ"},
	{Bulgarian, "и в на за да се от не с е са по към че като или ако това може всички ще този тази тези бил била било той тя те ние вие но само вече"},
	{Greek, "και το τα της την του των να σε με για από που είναι θα δεν στο στη στην στα στον ένα μια ή αν ως όταν οι ο η"},
}

// functionWords maps a function word to the mask of detectLangs that list
// it. It is built once and only read.
var functionWords = func() map[string]uint32 {
	m := make(map[string]uint32, 1024)
	for i, d := range detectLangs {
		for _, w := range strings.Fields(d.words) {
			m[w] |= 1 << i
		}
	}
	return m
}()

// detectIndex returns the index of l in detectLangs, or -1.
func detectIndex(l Language) int {
	for i, d := range detectLangs {
		if d.lang == l {
			return i
		}
	}
	return -1
}

// suffixMask returns the mask of detectLangs whose spelling the ending of
// the word w shows, for the related languages whose function words are
// mostly shared: Norwegian writes -sjon where Danish and Swedish write
// -tion, and -het where Danish writes -hed (sikkerhet, sikkerhed).
func suffixMask(w string) uint32 {
	if len(w) < 6 {
		return 0
	}
	base := strings.TrimRight(w, "enrs") // -en, -er, -ene, -ens, -s
	switch {
	case strings.HasSuffix(base, "sjo"):
		return 1 << norwegianIdx
	case strings.HasSuffix(base, "het"):
		return 1<<norwegianIdx | 1<<swedishIdx
	case strings.HasSuffix(base, "hed") && len(base) > 4 && !strings.ContainsRune("sct", rune(base[len(base)-4])):
		return 1 << danishIdx // not English -shed, -ched, -thed
	}
	return 0
}

// Indexes in detectLangs that suffixMask names.
const (
	swedishIdx   = 4
	norwegianIdx = 5
	danishIdx    = 13
)
